'use client';

import { useQuery } from '@tanstack/react-query';
import type { IChartApi, ISeriesApi, UTCTimestamp } from 'lightweight-charts';
import { useEffect, useRef, useState } from 'react';
import { useTRPC } from '@/components/trpc/provider';
import { DataTable } from '@/components/ui/data-table';
import { formatNative, formatSignificant, formatTimestamp, toWholeUnits } from '@/components/ui/format';
import { Segmented } from '@/components/ui/segmented';
import { type ChartInterval, chartIntervals } from '@/shared/api/enums';
import { continuousCandles, plotScale } from './chart-data';

const CHART_POINTS = 300;

function cssVariable(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value === '' ? fallback : value;
}

/**
 * Candlesticks with a volume histogram from the indexed candles (the API's chart route). Prices
 * are exact integers on the wire and become floats only here, for drawing.
 */
export function PriceChart({ address }: { address: string }) {
  const trpc = useTRPC();
  const [interval, setChartInterval] = useState<ChartInterval>('1h');
  const query = useQuery(trpc.tokens.chart.queryOptions({ address, interval, limit: CHART_POINTS }));
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<{
    api: IChartApi;
    candles: ISeriesApi<'Candlestick'>;
    volume: ISeriesApi<'Histogram'>;
  }>(null);
  const [drawn, setDrawn] = useState<number | null>(null);
  // Token prices are often far below a cent; the chart's price scale needs steps of at least
  // 0.01, so prices are plotted multiplied by a power of ten and divided back when labelled.
  const scale = useRef(1);

  const [ready, setReady] = useState(false);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    let api: IChartApi | undefined;
    let cancelled = false;
    // The charting library is loaded after the page: it is the largest part of a token page's
    // JavaScript, and the figures above the chart need none of it.
    void import('lightweight-charts').then(
      ({ CandlestickSeries, ColorType, createChart, HistogramSeries }) => {
        if (cancelled) return;
        const good = cssVariable('--good', '#2b8a3e');
        const bad = cssVariable('--bad', '#c92a2a');
        api = createChart(element, {
          autoSize: true,
          layout: {
            background: { type: ColorType.Solid, color: 'transparent' },
            textColor: cssVariable('--muted', '#5d6372'),
            attributionLogo: false,
          },
          grid: {
            vertLines: { color: cssVariable('--border', '#e2e4ea') },
            horzLines: { color: cssVariable('--border', '#e2e4ea') },
          },
          // fitContent would stretch a young token's one or two candles across the whole width.
          timeScale: { timeVisible: true, secondsVisible: false, borderVisible: false, maxBarSpacing: 24 },
          rightPriceScale: { borderVisible: false },
        });
        const candles = api.addSeries(CandlestickSeries, {
          upColor: good,
          downColor: bad,
          wickUpColor: good,
          wickDownColor: bad,
          borderVisible: false,
          priceFormat: {
            type: 'custom',
            minMove: 0.01,
            // The autoscale margin can reach below zero; a negative price label would be nonsense.
            formatter: (plotted: number) =>
              plotted < 0 ? '' : `$${formatSignificant(plotted / scale.current)}`,
          },
        });
        const volume = api.addSeries(HistogramSeries, {
          priceScaleId: 'volume',
          lastValueVisible: false,
          priceLineVisible: false,
          priceFormat: {
            type: 'custom',
            minMove: 0.01,
            formatter: (value: number) => `$${formatSignificant(value)}`,
          },
          color: cssVariable('--accent', '#3b5bdb'),
        });
        api.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
        candles.priceScale().applyOptions({ scaleMargins: { top: 0.1, bottom: 0.25 } });
        chart.current = { api, candles, volume };
        setReady(true);
      },
    );
    return () => {
      cancelled = true;
      chart.current = null;
      api?.remove();
    };
  }, []);

  const items = query.data?.items;
  useEffect(() => {
    // Runs again once the library has loaded and the chart exists.
    const current = ready ? chart.current : null;
    if (!current || !items) return;
    scale.current = plotScale(items.map((point) => toWholeUnits(point.low)));
    const plot = (value: bigint) => toWholeUnits(value) * scale.current;
    current.candles.setData(
      continuousCandles(items).map((point) => ({
        time: point.time as UTCTimestamp,
        open: plot(point.open),
        high: plot(point.high),
        low: plot(point.low),
        close: plot(point.close),
      })),
    );
    current.volume.setData(
      items.map((point) => ({
        time: point.time as UTCTimestamp,
        value: toWholeUnits(point.volume),
        color: point.close >= point.open ? 'rgba(43, 138, 62, 0.45)' : 'rgba(201, 42, 42, 0.45)',
      })),
    );
    current.api.timeScale().fitContent();
    setDrawn(items.length);
  }, [items, ready]);

  return (
    <section className="panel chart-panel" aria-labelledby="chart-heading">
      <div className="chart-bar">
        <h2 id="chart-heading">Price</h2>
        <Segmented
          legend="Candle interval"
          name="chart-interval"
          options={chartIntervals}
          value={interval}
          onChange={setChartInterval}
        />
      </div>
      <div
        ref={container}
        className="chart"
        data-testid="price-chart"
        data-candles={drawn ?? undefined}
        data-interval={interval}
        role="img"
        aria-label={`Price candles, ${interval} interval${items ? `, ${items.length} candles` : ''}`}
      />
      {query.isError ? (
        <p role="alert" className="field-error">
          Could not load the chart: {query.error.message}
        </p>
      ) : items && items.length === 0 ? (
        <p className="muted small">No trades in this range yet.</p>
      ) : null}
      {items && items.length > 0 ? (
        <details className="chart-data">
          <summary>Candles as a table</summary>
          <DataTable
            caption="Candles, oldest first"
            columns={[
              { label: 'Start' },
              ...['Open', 'High', 'Low', 'Close', 'Volume', 'Trades'].map((label) => ({
                label,
                className: 'num',
              })),
            ]}
          >
            {items.map((point) => (
              <tr key={point.time} data-time={point.time}>
                <td>{formatTimestamp(point.time)}</td>
                <td className="num">{formatNative(point.open)}</td>
                <td className="num">{formatNative(point.high)}</td>
                <td className="num">{formatNative(point.low)}</td>
                <td className="num">{formatNative(point.close)}</td>
                <td className="num">{formatNative(point.volume)}</td>
                <td className="num">{point.trades}</td>
              </tr>
            ))}
          </DataTable>
        </details>
      ) : null}
    </section>
  );
}
