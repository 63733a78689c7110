/**
 * EIP-712 domain and type of the finalize signature (DESIGN.md section 8). The server verifies
 * and the launch page signs with these same definitions, so this module stays client-safe.
 */
export const finalizeTypes = {
  Finalize: [
    { name: 'draft', type: 'string' },
    { name: 'token', type: 'address' },
    { name: 'transactionHash', type: 'bytes32' },
  ],
} as const;

export const finalizeDomain = (chainId: number) => ({ name: 'Launchdex', version: '1', chainId }) as const;
