import { Hono } from 'hono';
import {
  AddMembersBodySchema,
  CreateConversationBodySchema,
  ListMessagesQuerySchema,
  MemberParamsSchema,
  ReadConversationBodySchema,
  SendMessageBodySchema,
  UpdateConversationBodySchema,
} from '../../../schema/chat';
import { NEXT_CURSOR_HEADER } from '../../../schema/posts';
import type { AppEnv } from '../../lib/context';
import { validate } from '../../lib/http';
import { requireUser } from '../auth/auth.middleware';
import {
  addMembers,
  countUnreadMessages,
  createConversation,
  joinConversation,
  leaveConversation,
  listChatContacts,
  listConversations,
  listMessages,
  markConversationRead,
  readUpToMessage,
  removeMember,
  sendMessage,
  updateConversation,
} from './chat.service';
import { ConversationIdParamsSchema } from '../../../schema/common';

const idParam = validate('param', ConversationIdParamsSchema);

/** Chat (docs/api-chat-alerts.md, decision 143): only a conversation's members reach it; everyone else gets 404. */
export const chatRoutes = new Hono<AppEnv>()
  .get('/conversations', requireUser, async (c) => c.json(await listConversations(c.var.deps, c.var.user)))
  .post('/conversations', requireUser, validate('json', CreateConversationBodySchema), async (c) => {
    const { conversation, created } = await createConversation(c.var.deps, c.var.user, c.req.valid('json'));
    return c.json(conversation, created ? 201 : 200);
  })
  .patch('/conversations/:id', requireUser, idParam, validate('json', UpdateConversationBodySchema), async (c) =>
    c.json(await updateConversation(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'))),
  )
  .post('/conversations/:id/members', requireUser, idParam, validate('json', AddMembersBodySchema), async (c) =>
    c.json(await addMembers(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'))),
  )
  .delete('/conversations/:id/members/:userId', requireUser, validate('param', MemberParamsSchema), async (c) => {
    const { id, userId } = c.req.valid('param');
    await removeMember(c.var.deps, c.var.user, id, userId);
    return c.body(null, 204);
  })
  .post('/conversations/:id/join', requireUser, idParam, async (c) =>
    c.json(await joinConversation(c.var.deps, c.var.user, c.req.valid('param').id)),
  )
  .post('/conversations/:id/leave', requireUser, idParam, async (c) => {
    await leaveConversation(c.var.deps, c.var.user, c.req.valid('param').id);
    return c.body(null, 204);
  })
  .get('/conversations/:id/messages', requireUser, idParam, validate('query', ListMessagesQuerySchema), async (c) => {
    const page = await listMessages(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('query'));
    if (page.nextCursor) c.header(NEXT_CURSOR_HEADER, page.nextCursor);
    return c.json(page.messages);
  })
  .post('/conversations/:id/messages', requireUser, idParam, validate('json', SendMessageBodySchema), async (c) =>
    c.json(await sendMessage(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json')), 201),
  )
  .patch('/conversations/:id/read', requireUser, idParam, async (c) =>
    c.json(await markConversationRead(c.var.deps, c.var.user, c.req.valid('param').id)),
  )
  .post('/conversations/:id/read', requireUser, idParam, validate('json', ReadConversationBodySchema), async (c) =>
    c.json(await readUpToMessage(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'))),
  )
  .get('/messages/unread-count', requireUser, async (c) => c.json(await countUnreadMessages(c.var.deps, c.var.user)))
  .get('/users', requireUser, async (c) => c.json(await listChatContacts(c.var.deps, c.var.user)));
