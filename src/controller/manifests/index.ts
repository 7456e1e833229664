export * from './apply.js';
export * from './directory-security.js';
export * from './identity.js';
export * from './manifest-directory.js';
export * from './parse.js';
export * from './rbac.js';
