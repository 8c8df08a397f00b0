/**
 * What the credential fixes as values of the Trading Service API: the limits of its fields, the
 * path its test reads, and the paths the service answers with the API key alone. The node reads
 * them from here (nodes/TradingService/constants.ts), so credential and node agree on them.
 */

export const CREDENTIAL_LIMITS = {
	/**
	 * Requests a second each API key may send (the UAE documentation, "Order Rate Limiting"): 20 to
	 * order endpoints (new order, batch orders, every cancel), 5 to every other endpoint. Over them
	 * the service answers 429 and suspends the key for a minute; an address that keeps sending is
	 * banned (418). The credential's defaults; an account with other limits edits them.
	 */
	orderRequestsPerSecond: 20,
	queryRequestsPerSecond: 5,
	/** The most requests a second the credential takes per class (an account with raised limits). */
	maxRequestsPerSecond: 1000,
	/** recvWindow default (spec §5.4 recommends ≤ 5000). */
	defaultRecvWindowMs: 5000,
	/**
	 * The largest recvWindow: the UAE documentation's maximum (larger values are refused), so the
	 * credential, the order option and every wait on a receive window stop here.
	 */
	maxRecvWindowMs: 8000,
} as const;

/** The key's account type: the lightest signed read every valid key may make (the credential test). */
export const CREDENTIAL_TEST_PATH = '/api/v1/account/checkApiKey';

/** Market data and exchange info, by name (their meaning: constants.ts PATHS). */
export const MARKET_DATA_PATH_NAMES = {
	exchangeInfo: '/api/v1/exchangeInfo',
	tickerPrice: '/quote/v1/ticker/price',
	ticker24h: '/quote/v1/ticker/24hr',
	depth: '/quote/v1/depth',
	trades: '/quote/v1/trades',
	klines: '/quote/v1/klines',
} as const;

/**
 * Paths the service answers with the API key alone (spec §5.1 MARKET_DATA: "valid API key", no
 * signature). The credential signs every other request.
 */
export const MARKET_DATA_PATHS: readonly string[] = Object.values(MARKET_DATA_PATH_NAMES);
