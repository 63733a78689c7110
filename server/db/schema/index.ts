export * from './chain';
export * from './metadata';
export * from './read-version';
export * from './secrets';
export * from './tokens';
export * from './traders';
export * from './trades';
export * from './webhooks';
