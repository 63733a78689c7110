import { type AddressPageProps, addressTitle, pageAddress } from '@/app/address-page';
import { WalletView } from '@/components/wallets/wallet-view';

export const generateMetadata = addressTitle('Wallet');

export default async function WalletPage(props: AddressPageProps) {
  return <WalletView address={(await pageAddress(props)).toLowerCase()} />;
}
