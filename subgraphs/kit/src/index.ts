export * from './federated-schema';
export * from './context';
export * from './page-info';
export * from './errors';
export * from './server';
export * from './container';
export * from './service-main';
export * from './uploads';
