/** The built-in team roles live in the contract (docs/permissions.md). */
export { BUILT_IN_ROLES } from '@portal/contract/permissions';
