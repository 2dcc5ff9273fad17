/** Activity log routes: parse, call the service, answer. */
import type { FastifyInstance } from 'fastify';
import { activityRoutes } from '@portal/contract/activity';
import { registerRoute, staffScopeOf } from '../../lib/http.ts';
import { scopeOf } from '../module.ts';
import type { ActivityService } from './activity.service.ts';

export function registerActivityRoutes(app: FastifyInstance, s: { activity: ActivityService }): void {
  registerRoute(app, activityRoutes.list, async ({ auth, query }) => ({
    data: await s.activity.companyList(scopeOf(auth), query),
  }));
  registerRoute(app, activityRoutes.filters, async ({ auth }) => ({
    data: await s.activity.companyFilters(scopeOf(auth)),
  }));
  registerRoute(app, activityRoutes.resellerList, async ({ auth, query }) => ({
    data: await s.activity.resellerList(staffScopeOf(auth), query),
  }));
  registerRoute(app, activityRoutes.resellerFilters, async ({ auth }) => ({
    data: await s.activity.resellerFilters(staffScopeOf(auth)),
  }));
}
