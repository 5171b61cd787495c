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
  .get('/admin/users', (c) => c.json(listStaff(c.var.deps)))
  .post('/admin/users', validate('json', CreateUserBodySchema), (c) =>
    c.json(createStaffMember(c.var.deps, c.var.user, c.req.valid('json'), requestMeta(c)), 201),
  )
  .patch('/admin/users/:id/edit', validate('param', IdParamsSchema), validate('json', EditUserBodySchema), (c) =>
    c.json(editStaffMember(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'), requestMeta(c))),
  )
  .patch('/admin/users/:id/status', validate('param', IdParamsSchema), validate('json', UserStatusBodySchema), (c) =>
    c.json(setStaffStatus(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'), requestMeta(c))),
  )
  .put('/admin/users/:id/role', validate('param', IdParamsSchema), validate('json', UserRoleBodySchema), (c) =>
    c.json(setStaffRole(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'), requestMeta(c))),
  )
  .put('/admin/users/:id/houses', validate('param', IdParamsSchema), validate('json', UserHousesBodySchema), (c) =>
    c.json(setStaffHouses(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'), requestMeta(c))),
  )
  .post('/admin/users/:id/approve', validate('param', IdParamsSchema), validate('json', ApproveUserBodySchema), (c) =>
    c.json(approveRegistration(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'), requestMeta(c))),
  )
  .post('/admin/users/:id/two-factor/reset', validate('param', IdParamsSchema), (c) =>
    c.json(resetStaffTwoFactor(c.var.deps, c.var.user, c.req.valid('param').id, requestMeta(c))),
  )
  .delete('/admin/users/:id', validate('param', IdParamsSchema), (c) => {
    deleteStaffMember(c.var.deps, c.var.user, c.req.valid('param').id, requestMeta(c));
    return c.body(null, 204);
  });
