import { describe, expect, it } from 'vitest';
import { balances, candles, creators, tokens, trades } from './schema';
import { bulkColumns, columnNames, nonKeyNames, primaryKeyNames } from './table-columns';

describe('column lists read from the schema', () => {
  it('names every column in the order of the schema, with the cast the bulk writers use', () => {
    expect(columnNames(balances)).toEqual(['token_address', 'wallet', 'balance', 'kind', 'since_block']);
    expect(bulkColumns(balances)).toEqual({
      token_address: 'text',
      wallet: 'text',
      balance: 'numeric',
      kind: 'smallint',
      since_block: 'bigint',
    });
    expect(columnNames(trades).slice(0, 6)).toEqual([
      'block_number',
      'block_hash',
      'block_timestamp',
      'transaction_hash',
      'transaction_index',
      'log_index',
    ]);
    expect(bulkColumns(tokens, ['trending_score', 'excluded', 'created_block'])).toEqual({
      trending_score: 'float8',
      excluded: 'boolean',
      created_block: 'bigint',
    });
  });

  it('refuses a name the table does not have', () => {
    expect(() => bulkColumns(tokens, ['no_such_column'])).toThrow(/no_such_column/);
  });

  it('finds primary keys of one column and composite ones, and the columns outside them', () => {
    expect(primaryKeyNames(tokens)).toEqual(['address']);
    expect(primaryKeyNames(candles)).toEqual(['token_address', 'interval_seconds', 'bucket_start']);
    expect(nonKeyNames(creators)).toEqual([
      'tokens_launched',
      'tokens_graduated',
      'first_launch_at',
      'last_launch_at',
      'total_volume',
    ]);
  });
});
