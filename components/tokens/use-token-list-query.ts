'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/provider';

export function useTokenListQuery(input: { limit?: number; cursor?: string }) {
  const trpc = useTRPC();
  return useQuery(trpc.tokens.list.queryOptions(input));
}
