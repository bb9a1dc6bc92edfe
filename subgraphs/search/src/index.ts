// The search subgraph as a library (its schema and services); `main.ts` runs it as a process.
import 'reflect-metadata';
export { buildSearchSchema } from './schema';
export { BibSearchService } from './bibs/bib-search.service';
export { FaceSearchService } from './faces/face-search.service';
