/** Runtime config the server writes into index.html (`<meta name="portal-config">`). */
import { DEFAULT_API_BASE_PATH } from '@portal/contract/constants';

export interface PortalConfig {
  basePath: string;
  apiBasePath: string;
}

function readConfig(): PortalConfig {
  const fallback = { basePath: '/', apiBasePath: DEFAULT_API_BASE_PATH };
  const content = document.querySelector('meta[name="portal-config"]')?.getAttribute('content');
  if (!content) return fallback;
  try {
    return { ...fallback, ...(JSON.parse(content) as Partial<PortalConfig>) };
  } catch {
    return fallback;
  }
}

export const portalConfig = readConfig();
