// The photo pipeline alone (import, process, go-live), without the subgraph's schema: the organiser CLI's import starts
// without loading GraphQL.
export { MAX_FILES_PER_IMPORT, PipelineService } from './pipeline.service';
export type { ImportOutcome, ImportReport, ImportedFile, PhotoSource, PipelineStatus } from './pipeline.service';
