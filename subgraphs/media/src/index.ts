// The media subgraph as a library (its schema and services: the seed and the organiser CLI add videos); `main.ts` runs it as a process.
import 'reflect-metadata';
export { buildMediaSchema } from './schema';
export { ClippingService } from './clipping/clipping.service';
export { VideosService } from './videos/videos.service';
