/**
 * The brand's logo (SPEC point 1: alt 'Company Logo', shown only when there is one). An image that fails to load
 * (a dead URL, a blocked host) falls back to the brand's name, so customers never see a broken-image box
 * (issue 25 defect 7). On a dark surface a logo sits on a white plate: logos are drawn for light backgrounds, and
 * a dark wordmark vanished on the dark sign-in card (defect 9).
 */
import { useState } from 'react';
import { TEXT } from '@portal/contract/messages';

export function BrandLogo({
  src,
  name,
  className = '',
  fallbackClassName = '',
}: {
  src: string | null | undefined;
  /** Shown instead of an image that does not load. */
  name: string;
  className?: string;
  fallbackClassName?: string;
}) {
  const [failed, setFailed] = useState<string | null>(null);
  if (!src) return null;
  if (failed === src)
    return (
      <span className={`truncate font-semibold ${fallbackClassName}`} data-testid="brand-logo-fallback">
        {name}
      </span>
    );
  return <img src={src} alt={TEXT.companyLogoAlt} className={className} onError={() => setFailed(src)} />;
}
