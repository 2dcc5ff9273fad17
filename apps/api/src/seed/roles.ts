/** The built-in team roles (docs/permissions.md). Role 1 is Admin, as the spec requires. */
export const BUILT_IN_ROLES = [
  { id: 1, name: 'Admin', info: 'Full control of the team: members, roles, settings and all of its virtual machines.' },
  { id: 2, name: 'Operator', info: 'Creates, starts, stops, resets, resizes and deletes the team\'s virtual machines and opens their consoles.' },
  { id: 3, name: 'Viewer', info: 'Read-only: sees the team, its members and its virtual machines, but cannot change anything.' },
] as const;
