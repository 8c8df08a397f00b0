/**
 * describe() in an e2e run (jest.e2e.config.js sets TRADING_SERVICE_E2E=1); describe.skip when the
 * unit-test config picks these files up (they match its `*.test.ts` too).
 */
export const describeE2E = process.env.TRADING_SERVICE_E2E === '1' ? describe : describe.skip;
