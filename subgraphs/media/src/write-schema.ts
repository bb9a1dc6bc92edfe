// Build step (`npm run build`): writes this subgraph's schema.graphql from its schema builder.
import 'reflect-metadata';
import { writeSchemaFile } from '@em/subgraph-kit';
import path from 'node:path';
import { buildMediaSchema } from './schema';

writeSchemaFile(() => buildMediaSchema(), path.join(__dirname, '..', 'schema.graphql'));
