/**
 * Fields whose number keeps its literal text whatever its form or size (answer.ts), so that each
 * is a string in every item, as when the service quotes it: IDs (up to 20 digits) and the decimals
 * the node reads or compares (an 18-decimal amount sent as a JSON number would come back rounded,
 * and an order placed as sent would no longer match its answer).
 */
export const TEXT_FIELDS: ReadonlySet<string> = new Set([
	// IDs
	...['id', 'orderId', 'accountId', 'userId', 'lastOrderId', 'fromAccountId', 'toAccountId'],
	// orders (create, query, batch entries)
	...['price', 'origQty', 'executedQty', 'cummulativeQuoteQty', 'cumulativeQuoteQty', 'avgPrice'],
	...['reqAmount', 'stopPrice', 'icebergQty', 'quantity', 'amount'],
	...['feeAmount', 'sumFeeAmount', 'fee'],
	// balances
	...['free', 'locked', 'total'],
	// history records and transfers
	...['change', 'netTransferAmount', 'fromAccountBalance', 'toAccountBalance'],
]);

/** A fill's IDs and decimals, kept as the text the service sent (the fee object's too). */
export const ACCOUNT_TRADE_TEXT_FIELDS: ReadonlySet<string> = new Set([
	...['id', 'clientOrderId', 'ticketId', 'orderId', 'matchOrderId', 'accountId'],
	...['price', 'qty', 'commission', 'time'],
	...['fee', 'originFee', 'feeAmount', 'makerRebate', 'hskDeductPrice'],
]);

/** Decimal fields of market data (the UAE documentation's one-letter keys) and exchange info. */
export const MARKET_TEXT_FIELDS: ReadonlySet<string> = new Set([
	// tickers and trades: price, quantity, close, high, low, open, bid, ask, volumes
	...['p', 'q', 'c', 'h', 'l', 'o', 'b', 'a', 'v', 'qv', 'bq', 'aq'],
	// exchange info
	...['baseAssetPrecision', 'quotePrecision', 'quoteAssetPrecision'],
	...['minPrice', 'maxPrice', 'tickSize', 'minQty', 'maxQty', 'stepSize', 'minNotional'],
	...['marketOrderMinQty', 'marketOrderMaxQty', 'marketOrderMinAmount', 'marketOrderMaxAmount'],
	...[
		'minAmount',
		'maxAmount',
		'minBuyPrice',
		'maxSellPrice',
		'buyPriceUpRate',
		'sellPriceDownRate',
	],
	...['limitMinPrice', 'limitMaxPrice'],
]);
