import { notFound } from 'next/navigation';
import { type AddressPageProps, addressTitle, pageAddress } from '@/app/address-page';
import { CreatorView } from '@/components/creators/creator-view';
import { pageServices } from '@/server/handover';

export const generateMetadata = addressTitle('Creator');

export default async function CreatorPage(props: AddressPageProps) {
  const address = await pageAddress(props);
  try {
    const creator = await pageServices().reads.creator(address);
    return <CreatorView creator={creator} />;
  } catch (error) {
    if (pageServices().isErrorCode(error, 'not_found')) notFound();
    throw error;
  }
}
