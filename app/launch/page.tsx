import type { Metadata } from 'next';
import { LaunchView } from '@/components/launch/launch-view';

export const metadata: Metadata = { title: 'Launch a token' };

export default function LaunchPage() {
  return (
    <main className="launch-page">
      <LaunchView />
    </main>
  );
}
