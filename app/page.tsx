import { NewestTokens } from '@/components/tokens/newest-tokens';

export default function HomePage() {
  return (
    <main>
      <h1>Token launches</h1>
      <p className="muted">
        Names, images and links are supplied by creators and unverified. Trending reflects indexed trading
        activity and is not an endorsement.
      </p>
      <NewestTokens />
    </main>
  );
}
