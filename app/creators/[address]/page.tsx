import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { CreatorView } from '@/components/creators/creator-view';
import { shortAddress } from '@/components/ui/format';
import { pageServices } from '@/server/handover';
import { isAddress } from '@/shared/address';

type Props = { params: Promise<{ address: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Creator ${shortAddress((await params).address)}` };
}

export default async function CreatorPage({ params }: Props) {
  const { address } = await params;
  if (!isAddress(address)) notFound();
  try {
    const creator = await pageServices().reads.creator(address);
    return <CreatorView creator={creator} />;
  } catch (error) {
    if (pageServices().isErrorCode(error, 'not_found')) notFound();
    throw error;
  }
}
