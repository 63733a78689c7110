import type { APIRequestContext } from '@playwright/test';

/** Typed reads of the stack's REST API, so browser assertions compare against what the API says. */
export interface ApiToken {
  address: string;
  name: string;
  symbol: string;
  lifecycle: 'curve' | 'graduated';
  creator: string;
  trades_24h: number;
  holders: number;
}

export async function apiGet<T>(request: APIRequestContext, path: string): Promise<T> {
  const response = await request.get(path);
  if (!response.ok()) throw new Error(`GET ${path}: ${response.status()} ${await response.text()}`);
  return (await response.json()) as T;
}

export type Page<T> = { items: T[]; next_cursor: string | null };

/** The first token `/api/v1/tokens?{query}` lists: the fixture always has some. */
export async function firstToken(request: APIRequestContext, query: string): Promise<ApiToken> {
  const [token] = (await apiGet<Page<ApiToken>>(request, `/api/v1/tokens?${query}`)).items;
  if (!token) throw new Error('fixture has no tokens');
  return token;
}
