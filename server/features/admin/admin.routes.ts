import { Hono } from 'hono';
import {
  ApproveUserBodySchema,
  CreateUserBodySchema,
  EditUserBodySchema,
  UserHousesBodySchema,
  UserRoleBodySchema,
  UserStatusBodySchema,
} from '../../../schema/admin';
import type { AppEnv } from '../../lib/context';
import { validate } from '../../lib/http';
import { requestMeta, requireSystemAdmin } from '../auth/auth.middleware';
import {
  approveRegistration,
  createStaffMember,
  deleteStaffMember,
  editStaffMember,
  listStaff,
  resetStaffTwoFactor,
  setStaffHouses,
  setStaffRole,
  setStaffStatus,
} from './admin.service';
import { IdParamsSchema } from '../../../schema/common';

/** Staff administration (docs/api-auth-admin.md): system administrators only. */
export const adminRoutes = new Hono<AppEnv>()
  .use('/admin/*', requireSystemAdmin)
  .get('/admin/users', async (c) => c.json(await listStaff(c.var.deps)))
  .post('/admin/users', validate('json', CreateUserBodySchema), async (c) =>
    c.json(await createStaffMember(c.var.deps, c.var.user, c.req.valid('json'), requestMeta(c)), 201),
  )
  .patch('/admin/users/:id/edit', validate('param', IdParamsSchema), validate('json', EditUserBodySchema), async (c) =>
    c.json(await editStaffMember(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'), requestMeta(c))),
  )
  .patch(
    '/admin/users/:id/status',
    validate('param', IdParamsSchema),
    validate('json', UserStatusBodySchema),
    async (c) =>
      c.json(
        await setStaffStatus(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'), requestMeta(c)),
      ),
  )
  .put('/admin/users/:id/role', validate('param', IdParamsSchema), validate('json', UserRoleBodySchema), async (c) =>
    c.json(await setStaffRole(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'), requestMeta(c))),
  )
  .put(
    '/admin/users/:id/houses',
    validate('param', IdParamsSchema),
    validate('json', UserHousesBodySchema),
    async (c) =>
      c.json(
        await setStaffHouses(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'), requestMeta(c)),
      ),
  )
  .post(
    '/admin/users/:id/approve',
    validate('param', IdParamsSchema),
    validate('json', ApproveUserBodySchema),
    async (c) =>
      c.json(
        await approveRegistration(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'), requestMeta(c)),
      ),
  )
  .post('/admin/users/:id/two-factor/reset', validate('param', IdParamsSchema), async (c) =>
    c.json(await resetStaffTwoFactor(c.var.deps, c.var.user, c.req.valid('param').id, requestMeta(c))),
  )
  .delete('/admin/users/:id', validate('param', IdParamsSchema), async (c) => {
    await deleteStaffMember(c.var.deps, c.var.user, c.req.valid('param').id, requestMeta(c));
    return c.body(null, 204);
  });
