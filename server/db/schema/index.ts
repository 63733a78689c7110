export * from './chain';
export * from './metadata';
export * from './tokens';
export * from './trades';
