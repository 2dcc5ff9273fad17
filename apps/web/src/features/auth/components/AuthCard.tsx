/** The centred card every public auth screen sits in, with the brand's logo (the user's, else the address's). */
import type { ReactNode } from 'react';
import { BrandLogo } from '../../../components/BrandLogo.tsx';
import { DEFAULT_BRAND } from '@portal/contract/constants';
import { useBrand } from '../../../lib/public-brand.ts';

export function AuthCard({ title, subtitle, children }: { title: string; subtitle?: ReactNode; children: ReactNode }) {
  const brand = useBrand();
  return (
    // The sign-in screens are pages of their own: a main landmark holds the card.
    <main
      id="main"
      className="flex min-h-full items-center justify-center bg-gradient-to-br from-slate-100 dark:from-slate-950 to-brand-50 dark:to-slate-900 px-4 py-12"
    >
      <div className="w-full max-w-md rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-6 shadow-lg sm:p-8">
        {/* On the dark card the logo sits on a white plate: logos are drawn for light backgrounds (defect 9). */}
        <BrandLogo
          src={brand?.logoUrl}
          name={brand?.resellerName || DEFAULT_BRAND.acronymTitle}
          className="mb-6 h-10 max-w-full rounded object-contain object-left dark:bg-white dark:p-1"
          fallbackClassName="mb-6 block text-xl text-slate-900 dark:text-slate-100"
        />
        <h1 className="text-2xl font-semibold text-slate-900 dark:text-slate-100">{title}</h1>
        {subtitle && <div className="mt-1 text-sm text-slate-500 dark:text-slate-400">{subtitle}</div>}
        <div className="mt-6">{children}</div>
      </div>
    </main>
  );
}

export function FormError({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p
      role="alert"
      className="rounded-md bg-red-50 dark:bg-red-950/50 px-3 py-2 text-sm text-red-700 dark:text-red-300"
    >
      {message}
    </p>
  );
}
