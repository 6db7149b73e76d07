import { api } from '../../api'
import type { TemplatePreviewAnswer } from '../../../../schemas/alarms'

/** The engine's rendering of one template for the alarm being edited (POST /api/template-previews/{type}). */
export type TemplatePreview = TemplatePreviewAnswer

export const fetchTemplatePreview = (type: string, alarm: Record<string, unknown>, template: string, signal: AbortSignal): Promise<TemplatePreview> =>
  api<TemplatePreview>(`/api/template-previews/${encodeURIComponent(type)}`, {
    method: 'POST',
    json: { alarm, ...(template !== '' ? { template } : {}) },
    signal
  })
