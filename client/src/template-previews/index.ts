export { TemplatePreview } from './TemplatePreview'
