/** Applies the brand to every screen (tab title and icon): the known user's, else the address's (custom domains). */
import { Outlet } from 'react-router';
import { useBrand } from '../lib/public-brand.ts';
import { useBranding } from './branding.ts';

export function BrandedRoot() {
  useBranding(useBrand());
  return <Outlet />;
}
