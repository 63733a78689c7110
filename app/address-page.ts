import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { shortAddress } from '@/components/ui/format';
import { isAddress } from '@/shared/address';

/** The props of a page at `/…/[address]` (a creator's, a wallet's). */
export type AddressPageProps = { params: Promise<{ address: string }> };

/** `generateMetadata` of an address page: the noun and the short address. */
export const addressTitle =
  (noun: string) =>
  async ({ params }: AddressPageProps): Promise<Metadata> => ({
    title: `${noun} ${shortAddress((await params).address)}`,
  });

/** The page's address; a malformed one is a 404. */
export async function pageAddress({ params }: AddressPageProps): Promise<string> {
  const { address } = await params;
  if (!isAddress(address)) notFound();
  return address;
}
