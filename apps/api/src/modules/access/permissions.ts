/** The permission matrix lives in the contract (the portal reads it too); the API re-exports it. */
export * from '@portal/contract/permissions';
