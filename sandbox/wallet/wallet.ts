/**
 * The wallet side of the sandbox: deposit and withdrawal records and deposit addresses, as the
 * family's documentation describes them (docs/api.md, Wallet; pages "Get Deposit History",
 * the family's api-pro "Get Deposit History" page, and the family's "Withdrawal records"
 * and "Deposit Address").
 *
 * Deposits land in the custody account (the exchange's "Assets > Custody Account > Deposit"; the
 * history's flow type 900 is CUSTODY_DEPOSIT): a deposit that becomes successful (status 4) credits
 * the demo user's custody account once and adds a CUSTODY_DEPOSIT history record.
 */
import { DEMO_ACCOUNTS } from '../constants';
import * as D from '../decimal';
import type { Engine } from '../engine';

/** The deposit statuses of the documentation's table. */
export const DEPOSIT_STATUSES = [1, 3, 4, 5, 6, 7, 8, 9, 12] as const;
export const DEPOSIT_SUCCESSFUL = 4;
/** The withdrawal statuses of the family's table. */
export const WITHDRAWAL_STATUSES = [0, 1, 2, 3, 6, 7, 9, 10, 11] as const;
export const WITHDRAWAL_STATUS_CODES: Record<number, string> = {
	0: 'WITHDRAWAL_STATUS_UNKNOWN',
	1: 'BROKER_AUDITING_STATUS',
	2: 'BROKER_REJECT_STATUS',
	3: 'AUDITING_STATUS',
	6: 'WITHDRAWAL_SUCCESS_STATUS',
	7: 'WITHDRAWAL_FAILURE_STATUS',
	9: 'WITHDRAWAL_CANCELLED_STATUS',
	10: 'WAIT_MERCHANT_PASS',
	11: 'APPLY_CANCEL',
};

/** Coins and chains a deposit address exists for: chainType -> what the address answer says. */
export const DEPOSIT_CHAINS: Record<string, Record<string, { coinType: string; min: string }>> = {
	USDT: {
		ERC20: { coinType: 'ERC20_TOKEN', min: '1' },
		TRC20: { coinType: 'TRC20_TOKEN', min: '1' },
	},
	BTC: { BTC: { coinType: 'BTC', min: '0.0005' } },
	ETH: { ETH: { coinType: 'ETH', min: '0.01' } },
	SOL: { SOL: { coinType: 'SOL', min: '0.1' } },
};

export interface DepositRecord {
	time: string;
	depositOrderId: string;
	clientOrderId: string;
	coin: string;
	coinName: string;
	address: string;
	quantity: string;
	refundCode: string;
	refundReason: string;
	status: number;
	statusCode: string;
	txId: string;
	/** Not in the answer: the chain, for the `Chain_Coin` filter. */
	chainType: string;
}

export interface WithdrawalRecord {
	time: string;
	id: string;
	coin: string;
	coinId: string;
	coinName: string;
	address: string;
	addressExt: string;
	quantity: string;
	arriveQuantity: string;
	status: number;
	statusCode: string;
	txId: string;
	addressUrl: string;
	feeCoinId: string;
	feeCoinName: string;
	fee: string;
	remark: string;
	platform: string;
	chainType: string;
}

export interface DepositInput {
	coin: string;
	quantity: string;
	/** Default 4, Deposit successful. */
	status?: number;
	/** Creation time (ms); default now. */
	time?: number;
	chainType?: string;
	clientOrderId?: string;
	txId?: string;
}

export interface WithdrawalInput {
	coin: string;
	quantity: string;
	/** Default 6, successful. */
	status?: number;
	time?: number;
	fee?: string;
	address?: string;
	chainType?: string;
}

/** The wallet's test controls (`sandbox.wallet`). */
export interface WalletControl {
	deposit(input: DepositInput): DepositRecord;
	setDepositStatus(depositOrderId: string, status: number): DepositRecord;
	withdrawal(input: WithdrawalInput): WithdrawalRecord;
	deposits(): DepositRecord[];
	withdrawals(): WithdrawalRecord[];
}

const plain = (value: string, field: string): string => {
	if (!D.PLAIN_DECIMAL_RE.test(value) || !D.isPositive(D.parseDec(value) ?? D.ZERO))
		throw new Error(`wallet: ${field} must be a positive plain decimal, got ${value}`);
	return value;
};

const chainOf = (coin: string, chainType: string | undefined): string =>
	chainType ?? Object.keys(DEPOSIT_CHAINS[coin] ?? { [coin]: {} })[0];

/** Newest first: by time, then by the ID's digits. */
const newestFirst =
	<R extends { time: string }>(idOf: (r: R) => string) =>
	(a: R, b: R): number => {
		const x = BigInt(idOf(a).slice(1));
		const y = BigInt(idOf(b).slice(1));
		return Number(b.time) - Number(a.time) || (y > x ? 1 : y < x ? -1 : 0);
	};

export class Wallet implements WalletControl {
	private depositList: DepositRecord[] = [];
	private withdrawalList: WithdrawalRecord[] = [];
	private sequence = 578755281141776384n;
	/** Deposits already credited: a deposit is credited once, whatever its status does later. */
	private credited = new Set<string>();

	constructor(
		private readonly engine: Engine,
		private readonly now: () => number,
	) {}

	reset(): void {
		this.depositList = [];
		this.withdrawalList = [];
		this.credited.clear();
	}

	private nextId(prefix: string): string {
		this.sequence += 1n;
		return `${prefix}${this.sequence}`;
	}

	deposit(input: DepositInput): DepositRecord {
		const status = input.status ?? DEPOSIT_SUCCESSFUL;
		if (!(DEPOSIT_STATUSES as readonly number[]).includes(status))
			throw new Error(`wallet: deposit status ${status} is not in the documentation's table`);
		const chainType = chainOf(input.coin, input.chainType);
		const id = this.nextId('D');
		const record: DepositRecord = {
			time: String(input.time ?? this.now()),
			depositOrderId: id,
			clientOrderId: input.clientOrderId ?? '',
			coin: input.coin,
			coinName: input.coin,
			address: depositAddress(input.coin, chainType),
			quantity: plain(input.quantity, 'quantity'),
			refundCode: '',
			refundReason: '',
			status,
			statusCode: String(status),
			txId: input.txId ?? `0x${id.slice(1).padStart(64, '0')}`,
			chainType,
		};
		this.depositList.push(record);
		this.creditIfSuccessful(record);
		return { ...record };
	}

	setDepositStatus(depositOrderId: string, status: number): DepositRecord {
		const record = this.depositList.find((d) => d.depositOrderId === depositOrderId);
		if (record === undefined) throw new Error(`wallet: no deposit ${depositOrderId}`);
		if (!(DEPOSIT_STATUSES as readonly number[]).includes(status))
			throw new Error(`wallet: deposit status ${status} is not in the documentation's table`);
		record.status = status;
		record.statusCode = String(status);
		this.creditIfSuccessful(record);
		return { ...record };
	}

	private creditIfSuccessful(record: DepositRecord): void {
		if (record.status !== DEPOSIT_SUCCESSFUL || this.credited.has(record.depositOrderId)) return;
		this.credited.add(record.depositOrderId);
		const custody = DEMO_ACCOUNTS.custody;
		const before = D.parseDec(this.engine.getBalance(custody, record.coin)) ?? D.ZERO;
		const after = D.add(before, D.parseDec(record.quantity) ?? D.ZERO);
		this.engine.setBalance(custody, record.coin, D.fmt(after));
		this.engine.addRecords([
			{
				accountId: custody,
				flowTypeValue: 900,
				coin: record.coin,
				change: record.quantity,
				created: String(this.now()),
			},
		]);
	}

	withdrawal(input: WithdrawalInput): WithdrawalRecord {
		const status = input.status ?? 6;
		if (!(WITHDRAWAL_STATUSES as readonly number[]).includes(status))
			throw new Error(`wallet: withdrawal status ${status} is not in the family's table`);
		const fee = input.fee ?? '0';
		const quantity = plain(input.quantity, 'quantity');
		const arrive = D.sub(D.parseDec(quantity) ?? D.ZERO, D.parseDec(fee) ?? D.ZERO);
		const address = input.address ?? `0x${'ab'.repeat(20)}`;
		const record: WithdrawalRecord = {
			time: String(input.time ?? this.now()),
			id: this.nextId('W'),
			coin: input.coin,
			coinId: input.coin,
			coinName: input.coin,
			address,
			addressExt: '',
			quantity,
			arriveQuantity: D.fmt(arrive),
			status,
			statusCode: WITHDRAWAL_STATUS_CODES[status],
			txId: status === 6 ? `0x${'cd'.repeat(32)}` : '',
			addressUrl: address,
			feeCoinId: input.coin,
			feeCoinName: input.coin,
			fee,
			remark: '',
			platform: 'hashkey',
			chainType: chainOf(input.coin, input.chainType),
		};
		this.withdrawalList.push(record);
		return { ...record };
	}

	/** Every deposit, newest first (as the list answers by default: routes.ts). */
	deposits(): DepositRecord[] {
		return [...this.depositList]
			.sort(newestFirst((d: DepositRecord) => d.depositOrderId))
			.map((d) => ({ ...d }));
	}

	withdrawals(): WithdrawalRecord[] {
		return [...this.withdrawalList]
			.sort(newestFirst((w: WithdrawalRecord) => w.id))
			.map((w) => ({ ...w }));
	}
}

/** A fixed address per coin and chain (the exchange's addresses stay valid long-term). */
export function depositAddress(coin: string, chainType: string): string {
	let hash = 0;
	for (const char of `${coin}:${chainType}`) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
	const hex = hash.toString(16).padStart(8, '0');
	return chainType === 'TRC20' ? `T${hex.repeat(4).slice(0, 33)}` : `0x${hex.repeat(5)}`;
}

const WALLETS = new WeakMap<Engine, Wallet>();

/** The wallet of a sandbox (one per engine), made on first use. */
export function walletOf(engine: Engine, now: () => number): Wallet {
	let wallet = WALLETS.get(engine);
	if (wallet === undefined) {
		wallet = new Wallet(engine, now);
		WALLETS.set(engine, wallet);
	}
	return wallet;
}
