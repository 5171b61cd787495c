// Every schema of signing in and of accounts, for the server. The app imports sign-in.ts and account.ts
// directly, so its first screen builds only what it needs (decision 109).
export * from './sign-in';
export * from './account';
