import type { TemplatePreviewAnswer } from '../../../schemas/alarms'

/** The engine's rendering of one template for the alarm being edited (`alarms.templatePreview`). */
export type TemplatePreview = TemplatePreviewAnswer
