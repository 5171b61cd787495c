import { Hono } from 'hono';
import { CreateConversationBodySchema, ListMessagesQuerySchema, SendMessageBodySchema } from '../../../schema/chat';
import { NEXT_CURSOR_HEADER } from '../../../schema/posts';
import type { AppEnv } from '../../lib/context';
import { validate } from '../../lib/http';
import { requireUser } from '../auth/auth.middleware';
import {
  countUnreadMessages,
  listChatContacts,
  listConversations,
  listMessages,
  markConversationRead,
  openConversation,
  sendMessage,
} from './chat.service';
import { ConversationIdParamsSchema } from '../../../schema/common';

/** Direct messages (docs/api-chat-alerts.md); only a conversation's two participants reach it. */
export const chatRoutes = new Hono<AppEnv>()
  .get('/conversations', requireUser, (c) => c.json(listConversations(c.var.deps, c.var.user)))
  .post('/conversations', requireUser, validate('json', CreateConversationBodySchema), (c) => {
    const { conversation, created } = openConversation(c.var.deps, c.var.user, c.req.valid('json').participantId);
    return c.json(conversation, created ? 201 : 200);
  })
  .get(
    '/conversations/:id/messages',
    requireUser,
    validate('param', ConversationIdParamsSchema),
    validate('query', ListMessagesQuerySchema),
    (c) => {
      const page = listMessages(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('query'));
      if (page.nextCursor) c.header(NEXT_CURSOR_HEADER, page.nextCursor);
      return c.json(page.messages);
    },
  )
  .post(
    '/conversations/:id/messages',
    requireUser,
    validate('param', ConversationIdParamsSchema),
    validate('json', SendMessageBodySchema),
    (c) => c.json(sendMessage(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json')), 201),
  )
  .patch('/conversations/:id/read', requireUser, validate('param', ConversationIdParamsSchema), (c) =>
    c.json(markConversationRead(c.var.deps, c.var.user, c.req.valid('param').id)),
  )
  .get('/messages/unread-count', requireUser, (c) => c.json(countUnreadMessages(c.var.deps, c.var.user)))
  .get('/users', requireUser, (c) => c.json(listChatContacts(c.var.deps, c.var.user)));
