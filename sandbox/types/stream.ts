/** The user data stream's test controls (Sandbox.stream) and what they report. */

/** Which halves of the JSON heartbeat the sandbox plays; both true by default and after reset(). */
export interface StreamHeartbeat {
	/** Answer a client's `{"ping": n}` with `{"pong": n, "channelId": …}`. */
	answerPings?: boolean;
	/** Send `{"ping": ms, "channelId": …}` every `streamPingIntervalMs` (and end a socket after two unanswered). */
	sendPings?: boolean;
}

/**
 * The shapes the stream sends its events in (`sb.stream.setEventShape`), for the readings a client
 * must make of the shapes the UAE documentation gives. Fields left out stay as they are; reset()
 * restores the defaults (the family's spot shapes, no account field, own account only).
 */
export interface StreamEventShape {
	/**
	 * Order events: 'spot' (default) executionReport; 'contract': named contractExecutionReport,
	 * without the spot report's cumulative filled quantity `z` and its spot-only fields (`reqAmt`,
	 * `lo`, `lt`): the filled quantity is `q` less the remaining `r`; 'unnamed': the spot report with
	 * an empty `e`.
	 */
	orders?: 'spot' | 'contract' | 'unnamed';
	/** Balance events: 'spot' (default) outboundAccountInfo; 'contract': outboundContractAccountInfo whose balances carry no `l`. */
	balances?: 'spot' | 'contract';
	/** The maker flag `m`: a JSON boolean (default) or the text "true" / "false". */
	makerFlag?: 'boolean' | 'text';
	/** Order events carry the account ID in `a`, as ticketInfo does (default false). */
	accountField?: boolean;
	/** A master key's listen key also carries its sub accounts' events (default false: its own trading account's only). */
	subAccountEvents?: boolean;
	/**
	 * The trade ID of a futures fill's contractExecutionReport: in `t` (default, the futures51
	 * contract), in `d` (the spot report's name for it), or in neither ('none').
	 */
	contractTradeId?: 't' | 'd' | 'none';
}

export interface StreamStats {
	/** Sockets open now. */
	connections: number;
	/** Sockets ever accepted since the start or the last reset(). */
	connectionsOpened: number;
	/** Listen keys alive now (not expired, not deleted), oldest first. */
	listenKeys: string[];
	/** Listen keys deleted with DELETE /api/v1/userDataStream, in deletion order. */
	deletedListenKeys: string[];
	/** Accepted keep-alives (PUT /api/v1/userDataStream answered 200). */
	keepAlives: number;
	/** `{"ping": n}` messages received from clients (answered or not). */
	pingsFromClients: number;
}

/** Test controls of the user data stream (`sb.stream`); reset() undoes every one of them. */
export interface StreamControl {
	/** The WebSocket URL of a listen key: ws://host:port/api/v1/ws/<listenKey>. */
	url(listenKey: string): string;
	/** Destroy every open socket abruptly (no close frame); the listen keys stay alive. */
	dropConnections(): void;
	/** Stop (or resume) answering client pings and/or sending server pings; fields left out stay as they are. */
	setHeartbeat(heartbeat: StreamHeartbeat): void;
	/** Send each of the next `n` events twice (two separate messages). */
	duplicateNext(n: number): void;
	/** Every live listen key expires now: its sockets close, PUT and DELETE answer -1125, reconnects get 404. */
	expireListenKeys(): void;
	/** Send every event `ms` real milliseconds late (0: at once), order kept. */
	setEventDelay(ms: number): void;
	/** Send the next events in these shapes (see StreamEventShape); fields left out stay as they are. */
	setEventShape(shape: StreamEventShape): void;
	stats(): StreamStats;
}
