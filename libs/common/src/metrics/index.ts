export * from './registry';
export * from './route-label';
export * from './http';
export * from './pool';
export * from './endpoint';
