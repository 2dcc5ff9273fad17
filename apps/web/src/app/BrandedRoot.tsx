/** Applies the brand of the known user to every screen (tab title and icon). */
import { Outlet } from 'react-router';
import { useAuth } from '../lib/auth-context.tsx';
import { useBranding } from './branding.ts';

export function BrandedRoot() {
  const { user } = useAuth();
  useBranding(user);
  return <Outlet />;
}
