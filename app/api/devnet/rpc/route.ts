import { proxyDevnetRpc } from '@/server/chain/devnet-rpc-proxy';
import { getConfig } from '@/server/config';

export const dynamic = 'force-dynamic';

export function POST(request: Request) {
  return proxyDevnetRpc(request, { config: getConfig() });
}
