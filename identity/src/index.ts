// @em/identity: the local accounts of the embedded OpenID provider, for the CLI and the demo seed.
export * from './accounts/local-accounts.service';
export * from './accounts/sign-in-throttle';
export * from './accounts/sign-in-devices';
