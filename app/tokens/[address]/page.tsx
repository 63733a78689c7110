import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { TokenView } from '@/components/token/token-view';
import { createRequestContext } from '@/server/api/context';
import { createCaller } from '@/server/api/root';
import { isAppErrorCode } from '@/server/errors';
import { isAddress } from '@/shared/address';
import type { TokenDetail } from '@/shared/api/tokens';

async function loadToken(address: string): Promise<TokenDetail> {
  if (!isAddress(address)) notFound();
  try {
    return await createCaller(await createRequestContext()).tokens.byAddress({ address });
  } catch (error) {
    if (isAppErrorCode(error, 'not_found')) notFound();
    throw error;
  }
}

type Props = { params: Promise<{ address: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const token = await loadToken((await params).address);
  return { title: `${token.identity.name} (${token.identity.symbol})` };
}

export default async function TokenPage({ params }: Props) {
  return <TokenView initial={await loadToken((await params).address)} />;
}
