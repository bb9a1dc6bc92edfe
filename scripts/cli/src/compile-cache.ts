import { enableCompileCache } from 'node:module';

// Each command is a new process that loads MikroORM, the AWS SDK and BullMQ: Node 22 keeps their compiled code
// between runs (in NODE_COMPILE_CACHE when set, else in the system's temp dir); imported first by cli.ts.
enableCompileCache();
