/**
 * Demo teams and colleagues for a fresh `npm start`, so the Teams and Users screens show something real:
 * two teams led by the owner, two invited colleagues (they have no password until they confirm an invite).
 * The tests seed without them (`demoData: false`) and build the data each test needs.
 */
import { ADMIN_ROLE_ID } from '@portal/contract/constants';
import type { Tx } from '../db/client.ts';
import { teamMembers, teams, users } from '../db/schema.ts';
import { BUILT_IN_ROLES } from './roles.ts';

const roleId = (name: (typeof BUILT_IN_ROLES)[number]['name']) => BUILT_IN_ROLES.find((r) => r.name === name)!.id;
const OPERATOR_ROLE_ID = roleId('Operator');
const VIEWER_ROLE_ID = roleId('Viewer');

const DEMO_TEAMS = ['Platform', 'Web Apps'] as const;

export async function seedDemoTeams(tx: Tx, ids: { companyId: number; adminUserId: number }): Promise<void> {
  const [platform, web] = await tx
    .insert(teams)
    .values(DEMO_TEAMS.map((name) => ({ companyId: ids.companyId, name })))
    .returning();
  const [grace, alan] = await tx
    .insert(users)
    .values([
      { companyId: ids.companyId, email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper' },
      { companyId: ids.companyId, email: 'alan@example.com', firstName: 'Alan', lastName: 'Turing' },
    ])
    .returning();
  await tx.insert(teamMembers).values([
    { teamId: platform!.id, userId: ids.adminUserId, roleId: ADMIN_ROLE_ID },
    { teamId: web!.id, userId: ids.adminUserId, roleId: ADMIN_ROLE_ID },
    { teamId: platform!.id, userId: grace!.id, roleId: OPERATOR_ROLE_ID },
    { teamId: web!.id, userId: grace!.id, roleId: VIEWER_ROLE_ID },
    { teamId: web!.id, userId: alan!.id, roleId: OPERATOR_ROLE_ID },
  ]);
}
