// The images subgraph as a library (its schema and services: the seed and the organiser CLI run the pipeline); `main.ts` runs it as a process.
import 'reflect-metadata';
export { buildImagesSchema } from './schema';
export { DownloadsService } from './downloads/downloads.service';
export { PhotosService } from './photos/photos.service';
export { PipelineService } from './pipeline/pipeline.service';
export { TimelineService } from './timeline/timeline.service';
export { PhotoReviewService } from './review/photo-review.service';
export type { ReviewQueuePage } from './review/photo-review.service';
