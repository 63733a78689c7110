'use client';

import { useEffect, useRef, useState } from 'react';
import { type LiveEvent, liveEventTypes } from '@/shared/stream/events';

export type LiveStatus = 'connecting' | 'live' | 'offline';

/**
 * Subscribes to /api/v1/stream (optionally one token) for as long as the component is mounted.
 * EventSource reconnects by itself and sends the last checkpoint as Last-Event-ID, so the server
 * replays what was missed. `onEvent` may change every render; the latest one is called.
 */
export function useLiveStream(options: { token?: string; onEvent?: (event: LiveEvent) => void }): {
  status: LiveStatus;
  indexedThroughBlock: number | null;
} {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const [indexedThroughBlock, setIndexedThroughBlock] = useState<number | null>(null);
  const onEvent = useRef(options.onEvent);
  onEvent.current = options.onEvent;

  useEffect(() => {
    const source = new EventSource(`/api/v1/stream${options.token ? `?token=${options.token}` : ''}`);
    source.onopen = () => setStatus('live');
    source.onerror = () => setStatus(source.readyState === EventSource.CLOSED ? 'offline' : 'connecting');
    const listeners = liveEventTypes.map((type) => {
      const listener = (message: MessageEvent<string>) => {
        const event = { type, data: JSON.parse(message.data) } as LiveEvent;
        if (event.type === 'checkpoint' || event.type === 'reorg' || event.type === 'reset')
          setIndexedThroughBlock(event.data.indexed_through_block);
        onEvent.current?.(event);
      };
      source.addEventListener(type, listener);
      return [type, listener] as const;
    });
    return () => {
      for (const [type, listener] of listeners) source.removeEventListener(type, listener);
      source.close();
    };
  }, [options.token]);

  return { status, indexedThroughBlock };
}
