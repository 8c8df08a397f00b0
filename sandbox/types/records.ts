/** History records (GET /api/v1/account/balanceFlow), balance lines, and what tests seed. */

export interface HistoryRecord {
	id: string;
	accountId: string;
	coin: string;
	coinId: string;
	coinName: string;
	flowTypeValue: number;
	flowType: string;
	flowName: string;
	change: string;
	total: string;
	created: string;
	symbol?: string;
	/**
	 * Transfer records the sandbox writes (flow type 51) also carry the transfer's `orderId` and the
	 * `clientOrderId` it was sent with ("" when none): where the UAE documentation's transfer records
	 * have them, so an unknown transfer can be found by its client order ID.
	 */
	orderId?: string;
	clientOrderId?: string;
}

/** One balance line of GET /api/v1/account. */
export interface BalanceLine {
	asset: string;
	assetId: string;
	assetName: string;
	total: string;
	free: string;
	locked: string;
}

export type AddRecordInput = Partial<HistoryRecord> & {
	accountId: string;
	flowTypeValue: number;
	change: string;
	created: string;
};

export interface SeedRecordsOptions {
	flowType: number;
	count: number;
	startTime: number;
	endTime: number;
	accountId?: string;
	perMillisecond?: number;
	symbols?: string[];
	coin?: string;
	seed?: number;
}
