import type { DemoKey, RateLimitConfig, RequestRates } from './types';

/**
 * The demo Ed25519 key pair (generated with openssl genpkey -algorithm ed25519): the sandbox knows
 * the public key, a client signs with the private one. Demo only, published on purpose.
 */
export const DEMO_ED25519_PRIVATE_KEY = `-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIEKpyo3zKTp4qllgbSzRUMkDMbpwhZ/d3zGKkvAWHJfu
-----END PRIVATE KEY-----
`;
export const DEMO_ED25519_PUBLIC_KEY = `-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEADpjR7IuabOfsKg7Fd6MvI8C74tC0P/rvvu+PMcvLsfM=
-----END PUBLIC KEY-----
`;

export const DEMO_KEYS: { master: DemoKey; readOnly: DemoKey; sub: DemoKey; ed25519: DemoKey } = {
	master: {
		apiKey: 'sandbox-master-key',
		secret: 'sandbox-master-secret-do-not-use-in-production',
		permissions: ['read', 'trade'],
		kind: 'master',
	},
	readOnly: {
		apiKey: 'sandbox-readonly-key',
		secret: 'sandbox-readonly-secret-do-not-use-in-production',
		permissions: ['read'],
		kind: 'master',
	},
	sub: {
		apiKey: 'sandbox-sub-key',
		secret: 'sandbox-sub-secret-do-not-use-in-production',
		permissions: ['read', 'trade'],
		kind: 'sub',
	},
	/** The master account's self-generated Ed25519 key. */
	ed25519: {
		apiKey: 'sandbox-ed25519-key',
		secret: DEMO_ED25519_PRIVATE_KEY,
		permissions: ['read', 'trade'],
		kind: 'master',
		ed25519PublicKey: DEMO_ED25519_PUBLIC_KEY,
	},
};

export const DEMO_ACCOUNTS: {
	mainTrading: '10001';
	mainContract: '10003';
	custody: '10005';
	fiat: '10006';
	subTrading: '20001';
} = {
	mainTrading: '10001',
	mainContract: '10003',
	custody: '10005',
	fiat: '10006',
	subTrading: '20001',
};

/** Account id -> account type (spec 2.3). */
export const ACCOUNT_TYPES: Record<string, number> = {
	[DEMO_ACCOUNTS.mainTrading]: 1,
	[DEMO_ACCOUNTS.mainContract]: 3,
	[DEMO_ACCOUNTS.custody]: 5,
	[DEMO_ACCOUNTS.fiat]: 6,
	[DEMO_ACCOUNTS.subTrading]: 1,
};

/** Every account of the demo user (the master key sees and moves all of them). */
export const MASTER_ACCOUNTS: string[] = [
	DEMO_ACCOUNTS.mainTrading,
	DEMO_ACCOUNTS.mainContract,
	DEMO_ACCOUNTS.custody,
	DEMO_ACCOUNTS.fiat,
	DEMO_ACCOUNTS.subTrading,
];
export const SUB_ACCOUNTS: string[] = [DEMO_ACCOUNTS.subTrading];

export function accountsOf(key: DemoKey): string[] {
	return key.kind === 'master' ? MASTER_ACCOUNTS : SUB_ACCOUNTS;
}

/** The spot account orders of this key trade on. */
export function tradingAccountOf(key: DemoKey): string {
	return key.kind === 'master' ? DEMO_ACCOUNTS.mainTrading : DEMO_ACCOUNTS.subTrading;
}

/** Initial balances, restored by reset(). */
export const INITIAL_BALANCES: Record<string, Record<string, string>> = {
	[DEMO_ACCOUNTS.mainTrading]: { USDT: '100000', BTC: '10', ETH: '100', SOL: '1000' },
	[DEMO_ACCOUNTS.mainContract]: { USDT: '50000' },
	[DEMO_ACCOUNTS.custody]: { USDT: '250000', BTC: '5' },
	[DEMO_ACCOUNTS.fiat]: { USD: '100000', USDT: '10000' },
	[DEMO_ACCOUNTS.subTrading]: { USDT: '10000', BTC: '1', ETH: '10', SOL: '100' },
};

export interface SymbolInfo {
	base: string;
	quote: string;
	last: string;
}

export const SYMBOLS: Record<string, SymbolInfo> = {
	BTCUSDT: { base: 'BTC', quote: 'USDT', last: '50000' },
	ETHUSDT: { base: 'ETH', quote: 'USDT', last: '3000' },
	SOLUSDT: { base: 'SOL', quote: 'USDT', last: '150' },
};

/** Fee rate of market fills, in the quote coin. */
export const FEE_RATE = '0.001';
/** Fractional digits of a base quantity computed from a market `amount`. */
export const BASE_QTY_SCALE = 8;

export const FLOW_TYPES: Record<
	number,
	{ flowType: string; flowName: string; retentionDays: number }
> = {
	1: { flowType: 'TRADE', flowName: 'Trade', retentionDays: 7 },
	2: { flowType: 'FEE', flowName: 'Trading fee', retentionDays: 7 },
	32: { flowType: 'FUNDING_SETTLEMENT', flowName: '', retentionDays: 30 },
	51: { flowType: 'USER_ACCOUNT_TRANSFER', flowName: '', retentionDays: 30 },
	900: { flowType: 'CUSTODY_DEPOSIT', flowName: 'Custody deposit', retentionDays: 30 },
	904: { flowType: 'CUSTODY_WITHDRAW', flowName: 'Custody withdrawal', retentionDays: 30 },
	906: { flowType: 'FIAT_DEPOSIT', flowName: 'Fiat deposit', retentionDays: 30 },
	910: { flowType: 'FIAT_WITHDRAW', flowName: 'Fiat withdrawal', retentionDays: 30 },
};

export const ACCOUNT_TYPE_VALUES = [1, 3, 5, 6];

/** userId of GET /api/v1/account (one demo user owns every account). */
export const DEMO_USER_ID = '1830000000000000011';

export const DAY_MS = 86_400_000;

export const DEFAULT_RATE_LIMIT: RateLimitConfig = { windowMs: 60_000, maxWeight: 6000 };
/**
 * The HashKey UAE/MENA documentation's request rates ("Order Rate Limiting"): per API key, 20
 * requests a second to order endpoints, 5 to query endpoints; over that, HTTP 429 and a minute's
 * wait for the suspension to expire.
 */
export const DOCUMENTED_REQUEST_RATES: Readonly<RequestRates> = Object.freeze({
	orderPerSecond: 20,
	queryPerSecond: 5,
	suspensionMs: 60_000,
});
export const DEFAULT_HISTORY_LIMIT = 50;
export const MAX_HISTORY_LIMIT = 500;
export const DEFAULT_RECV_WINDOW = 5000;
/** The UAE documentation's maximum recvWindow: larger values are refused. */
export const MAX_RECV_WINDOW = 8_000;
/** Most characters of a transfer's clientOrderId (the UAE documentation). */
export const MAX_TRANSFER_CLIENT_ORDER_ID_LENGTH = 64;
export const MAX_BATCH_ORDERS = 20;
export const MAX_CLIENT_ORDER_ID_LENGTH = 255;
export const DEFAULT_FUNDING_SYMBOLS = ['BTCUSDT-PERPETUAL', 'ETHUSDT-PERPETUAL'];

/**
 * First ids handed out: 19 digits, larger than Number.MAX_SAFE_INTEGER, and not multiples of 256,
 * so that even the first id read as a JS number comes out wrong.
 */
export const RECORD_ID_BASE = 1_600_000_000_000_000_033n;
export const ORDER_ID_BASE = 1_950_000_000_000_000_017n;
export const TRANSFER_ID_BASE = 1_700_000_000_000_000_065n;
/** Fill ids (GET /api/v1/account/trades), the execution ids they share, and seeded fills' order ids. */
export const TRADE_ID_BASE = 1_980_000_000_000_000_049n;
export const TICKET_ID_BASE = 4_630_000_000_000_000_091n;
export const SEEDED_ORDER_ID_BASE = 1_940_000_000_000_000_023n;

/** GET /api/v1/account/trades: `limit` default and ceiling, and how far back (the UAE documentation). */
export const DEFAULT_TRADES_LIMIT = 500;
export const MAX_TRADES_LIMIT = 1000;
export const TRADES_DAYS = 30;
