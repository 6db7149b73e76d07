import { Type, type Static } from '@sinclair/typebox'
import { BoundedInteger, FreeText, INT32_MAX } from './common.js'

/** A [lat, lon] pair as the engine's Poracle format and the drawing page use it. */
export const LatLonSchema = Type.Tuple([Type.Number(), Type.Number()])

/** One fence of the engine feed (Poracle format, both engine generations parse every key). */
export const FeedFenceSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  path: Type.Array(LatLonSchema),
  group: Type.String(),
  description: Type.String(),
  color: Type.String(),
  userSelectable: Type.Boolean(),
  displayInMatches: Type.Boolean()
})
export const FeedSchema = Type.Object({ status: Type.Literal('ok'), data: Type.Array(FeedFenceSchema) })
export type Feed = Static<typeof FeedSchema>

export const FenceStatusSchema = Type.Union(['active', 'pending_review', 'approved', 'rejected'].map((s) => Type.Literal(s)))

export const UserFenceSchema = Type.Object({
  id: Type.Integer(),
  humanId: Type.String(),
  kojiName: Type.String({ description: 'The area name the engine knows this fence by (lower-cased display name, then ~u and the fence id)' }),
  displayName: Type.String(),
  groupName: Type.String(),
  status: FenceStatusSchema,
  parentId: Type.Union([Type.Integer(), Type.Null()]),
  polygon: Type.Array(LatLonSchema),
  pointCount: Type.Integer(),
  submittedAt: Type.Union([Type.String(), Type.Null()]),
  reviewedAt: Type.Union([Type.String(), Type.Null()]),
  reviewedBy: Type.Union([Type.String(), Type.Null()]),
  reviewNotes: Type.Union([Type.String(), Type.Null()]),
  promotedName: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String()
})

export const ReviewedFenceSchema = Type.Composite([UserFenceSchema, Type.Object({
  ownerName: Type.Union([Type.String(), Type.Null()]),
  reviewerName: Type.Union([Type.String(), Type.Null()])
})])

/**
 * Shapes are checked loosely here and precisely by the geofence rules, so that a bad polygon is answered
 * with the rule it breaks (too few points, crossing edges) rather than a schema path.
 */
export const FenceCreateSchema = Type.Object({
  displayName: Type.String({ maxLength: 200 }),
  groupName: Type.Optional(FreeText({ maxLength: 100 })),
  parentId: Type.Optional(Type.Union([BoundedInteger({ minimum: 0, maximum: INT32_MAX }), Type.Null()])),
  polygon: Type.Array(Type.Array(Type.Number(), { maxItems: 2 }), { maxItems: 1000 })
}, { additionalProperties: false })

export const FenceRenameSchema = Type.Object({
  displayName: Type.String({ maxLength: 200 }),
  groupName: Type.Optional(FreeText({ maxLength: 100 })),
  parentId: Type.Optional(Type.Union([BoundedInteger({ minimum: 0, maximum: INT32_MAX }), Type.Null()]))
}, { additionalProperties: false })

export const FenceIdParamsSchema = Type.Object({ id: BoundedInteger({ minimum: 1, maximum: INT32_MAX }) })

export const RegionSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  displayName: Type.String(),
  polygon: Type.Array(LatLonSchema)
})

export const ApproveSchema = Type.Object({
  promotedName: Type.Optional(FreeText({ maxLength: 200 })),
  parentId: Type.Optional(BoundedInteger({ minimum: 1, maximum: INT32_MAX })),
  groupName: Type.Optional(FreeText({ maxLength: 100 }))
}, { additionalProperties: false })

export const RejectSchema = Type.Object({
  reviewNotes: FreeText({ minLength: 1, maxLength: 2000, multiline: true })
}, { additionalProperties: false })

/** A GeoJSON import: at most 50 features; each is checked on its own and reported by name. */
export const MAX_IMPORT_FEATURES = 50
export const GeoJsonImportSchema = Type.Object({
  type: Type.Literal('FeatureCollection'),
  features: Type.Array(Type.Unknown(), { maxItems: MAX_IMPORT_FEATURES })
}, { additionalProperties: true })

export const ImportProblemSchema = Type.Object({ featureName: Type.String(), reason: Type.String() })
export const ImportResultSchema = Type.Object({
  created: Type.Array(UserFenceSchema),
  errors: Type.Array(ImportProblemSchema),
  warnings: Type.Array(Type.String())
})
/** A refused import: why, and for per-feature problems one entry per bad feature. */
export const ImportRefusalSchema = Type.Object({
  error: Type.String(),
  errors: Type.Optional(Type.Array(ImportProblemSchema)),
  warnings: Type.Optional(Type.Array(Type.String())),
  details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() })))
})

export const GeoJsonExportSchema = Type.Object({
  type: Type.Literal('FeatureCollection'),
  features: Type.Array(Type.Object({
    type: Type.Literal('Feature'),
    properties: Type.Object({ name: Type.String(), displayName: Type.String(), group: Type.String(), status: Type.String() }),
    geometry: Type.Object({ type: Type.Literal('Polygon'), coordinates: Type.Array(Type.Array(LatLonSchema)) })
  }))
})

/** The engine's loaded fences for the map (`GET /api/geofence/all`, filtered to what the caller may see). */
export const MapFenceSchema = Type.Object({
  name: Type.String(),
  id: Type.Optional(Type.Integer()),
  color: Type.Optional(Type.String()),
  group: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  path: Type.Optional(Type.Array(LatLonSchema)),
  multipath: Type.Optional(Type.Array(Type.Array(LatLonSchema))),
  userSelectable: Type.Optional(Type.Boolean()),
  displayInMatches: Type.Optional(Type.Boolean())
})
export const MapFencesSchema = Type.Object({ status: Type.Literal('ok'), geofence: Type.Array(MapFenceSchema) })
