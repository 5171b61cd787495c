import * as sqlite from '../tables';
import { pgTableOf } from './derive-table';

/**
 * The PostgreSQL tables, derived from tables.ts and exported under the same names (decision 152): change a table
 * there, then run `npm run db:generate` and `npm run db:generate:pg`.
 */

export const users = pgTableOf(sqlite.users);
export const sessions = pgTableOf(sqlite.sessions);
export const endedSessions = pgTableOf(sqlite.endedSessions);
export const userTokens = pgTableOf(sqlite.userTokens);
export const loginFailures = pgTableOf(sqlite.loginFailures);
export const accountRequests = pgTableOf(sqlite.accountRequests);
export const mailOutbox = pgTableOf(sqlite.mailOutbox);
export const auditLog = pgTableOf(sqlite.auditLog);
export const settings = pgTableOf(sqlite.settings);
export const syncCounter = pgTableOf(sqlite.syncCounter);
export const syncDeviceStates = pgTableOf(sqlite.syncDeviceStates);
export const deletedUsers = pgTableOf(sqlite.deletedUsers);
export const posts = pgTableOf(sqlite.posts);
export const scheduledPosts = pgTableOf(sqlite.scheduledPosts);
export const comments = pgTableOf(sqlite.comments);
export const reactions = pgTableOf(sqlite.reactions);
export const uploads = pgTableOf(sqlite.uploads);
export const userHouses = pgTableOf(sqlite.userHouses);
export const conversations = pgTableOf(sqlite.conversations);
export const conversationMembers = pgTableOf(sqlite.conversationMembers);
export const messages = pgTableOf(sqlite.messages);
export const acknowledgements = pgTableOf(sqlite.acknowledgements);
export const mentionEntries = pgTableOf(sqlite.mentionEntries);
export const pushSubscriptions = pgTableOf(sqlite.pushSubscriptions);
export const pushTestSends = pgTableOf(sqlite.pushTestSends);
export const pushBursts = pgTableOf(sqlite.pushBursts);
export const suggestions = pgTableOf(sqlite.suggestions);
export const residents = pgTableOf(sqlite.residents);
export const residentVersions = pgTableOf(sqlite.residentVersions);
export const residentViews = pgTableOf(sqlite.residentViews);
export const handovers = pgTableOf(sqlite.handovers);
export const handoverAddenda = pgTableOf(sqlite.handoverAddenda);
export const handoverReads = pgTableOf(sqlite.handoverReads);
export const handoverViews = pgTableOf(sqlite.handoverViews);
export const handoverAccess = pgTableOf(sqlite.handoverAccess);
export const ssoAttempts = pgTableOf(sqlite.ssoAttempts);
export const totpFactors = pgTableOf(sqlite.totpFactors);
export const recoveryCodes = pgTableOf(sqlite.recoveryCodes);
export const passkeys = pgTableOf(sqlite.passkeys);
export const authChallenges = pgTableOf(sqlite.authChallenges);
