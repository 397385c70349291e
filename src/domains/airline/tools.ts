/**
 * The airline agent tools (specs/airline.md §2–3). Arguments arrive exactly as
 * the model wrote them (no validation), so the code reproduces upstream's
 * Python semantics where malformed input reaches it: dict lookups by
 * unhashable keys, int/float arithmetic, unvalidated assignments.
 */
import { isPyDict, PyFloat, pyRepr, pyStr, pyTypeName } from "../../core/py-json.ts";
import type { DbState } from "../../env/db-state.ts";
import { deepClone, isFrozenValue, modelResult, t, validate } from "../../env/model.ts";
import { type JsonSchema, param, PyTypeError, type ToolDef, ToolError } from "../../env/toolkit.ts";
import { getOrRaise, hasKey, pyIterate, pyLen } from "../python-ops.ts";
import { calculate, transferToHumanAgents } from "../shared-tools.ts";
import {
  AirportCode,
  Certificate,
  DirectFlight,
  FlightInfo,
  Passenger,
  Payment,
  Reservation,
  ReservationFlight,
  User,
  type AirlineRoot,
  type FlightDateRecord,
  type FlightRecord,
  type PaymentRecord,
  type ReservationFlightRecord,
  type ReservationRecord,
  type UserRecord,
} from "./model.ts";

/** The fixed "now" of the airline world. */
export const AIRLINE_NOW = "2024-05-15T15:00:00";
const RESERVATION_IDS = ["HATHAT", "HATHAU", "HATHAV"];
const CERTIFICATE_IDS = ["certificate_3221322", "certificate_3221323", "certificate_3221324"];
/** Every airport and its city, in upstream's order (the original τ-bench's airline lists the same ones). */
export const AIRPORTS: readonly [string, string][] = [
  ["SFO", "San Francisco"],
  ["JFK", "New York"],
  ["LAX", "Los Angeles"],
  ["ORD", "Chicago"],
  ["DFW", "Dallas"],
  ["DEN", "Denver"],
  ["SEA", "Seattle"],
  ["ATL", "Atlanta"],
  ["MIA", "Miami"],
  ["BOS", "Boston"],
  ["PHX", "Phoenix"],
  ["IAH", "Houston"],
  ["LAS", "Las Vegas"],
  ["MCO", "Orlando"],
  ["EWR", "Newark"],
  ["CLT", "Charlotte"],
  ["MSP", "Minneapolis"],
  ["DTW", "Detroit"],
  ["PHL", "Philadelphia"],
  ["LGA", "LaGuardia"],
];

const airline = (db: DbState<any>) => db.root as AirlineRoot;

// ---------------------------------------------------------------------------
// Python semantics helpers

/** Python `d[key]` (KeyError text = the key's repr). */
function item<V>(map: { has(key: string): boolean; get(key: string): V | undefined }, key: unknown): V {
  // The message (a repr) is made only when the key is missing.
  if (!hasKey(map, key)) throw new ToolError(pyRepr(key));
  return map.get(key)!;
}

/**
 * Upstream converts an argument list to models only when every element is a
 * dict (`Model(**d)`, errors titled with the model's name); otherwise the
 * list is used as given.
 */
function modelsIfAllDicts<T>(value: unknown, ty: typeof FlightInfo, title: string): T[] | unknown {
  const elements = pyIterate(value);
  if (!elements.every(isPyDict)) return value;
  return elements.map((element) => validate<T>(ty, element, title));
}

/** A Python number as (value, is-float); bools are ints. Anything else yields undefined. */
interface Num {
  value: number;
  float: boolean;
}
function asNum(value: unknown): Num | undefined {
  if (typeof value === "boolean") return { value: value ? 1 : 0, float: false };
  if (value instanceof PyFloat) return { value: value.value, float: true };
  if (typeof value === "number") return { value, float: !Number.isInteger(value) };
  return undefined;
}
function boxNum(n: Num): number | PyFloat {
  return n.float && Number.isInteger(n.value) ? new PyFloat(n.value) : n.value;
}

/** Attribute access on a value that upstream expects to be a model built from a dict. */
function attribute<T>(value: unknown, name: string, converted: boolean): T {
  if (converted) return (value as Record<string, T>)[name]!;
  throw new ToolError(`'${pyTypeName(value)}' object has no attribute '${name}'`);
}

// ---------------------------------------------------------------------------
// Lookups (airline.md §2)

function getUser(db: DbState<any>, userId: unknown): UserRecord {
  return getOrRaise(airline(db).users, userId, `User ${pyStr(userId)} not found`);
}

function getReservation(db: DbState<any>, reservationId: unknown): ReservationRecord {
  return getOrRaise(airline(db).reservations, reservationId, `Reservation ${pyStr(reservationId)} not found`);
}

function getFlight(db: DbState<any>, flightNumber: unknown): FlightRecord {
  return getOrRaise(airline(db).flights, flightNumber, `Flight ${pyStr(flightNumber)} not found`);
}

function getFlightDate(db: DbState<any>, flightNumber: unknown, date: unknown): FlightDateRecord {
  const flight = getFlight(db, flightNumber);
  return getOrRaise(flight.dates, date, `Flight ${pyStr(flightNumber)} not found on date ${pyStr(date)}`);
}

/** Copy-on-write access for a write: the episode's private copy of a reservation. */
function writableReservation(db: DbState<any>, reservationId: string): ReservationRecord {
  return airline(db).reservations.mutate(reservationId);
}

/**
 * The episode's own copy of one flight-date entry. Only the path to it is
 * copied (flight, its date map, the entry, its seat map); the other 29 dates
 * stay shared with the base, which keeps bookings cheap to apply and to hash.
 */
function writableFlightDate(db: DbState<any>, flightNumber: string, date: string): FlightDateRecord {
  const flights = airline(db).flights;
  let flight = flights.get(flightNumber)!;
  if (isFrozenValue(flight)) {
    flight = { ...flight, dates: new Map(flight.dates) };
    flights.set(flightNumber, flight);
  }
  let entry = flight.dates.get(date)!;
  if (isFrozenValue(entry)) {
    entry = { ...entry, available_seats: new Map(entry.available_seats) };
    flight.dates.set(date, entry);
  }
  return entry;
}

function writableUser(db: DbState<any>, userId: string): UserRecord {
  return airline(db).users.mutate(userId);
}

interface DirectFlightRecord {
  flight_number: string;
  origin: string;
  destination: string;
  status: "available";
  scheduled_departure_time_est: string;
  scheduled_arrival_time_est: string;
  date: string | null;
  available_seats: Map<string, number>;
  prices: Map<string, number>;
}

/** The direct-flight search helper: DB order, availability, and a plain string comparison on `leave_after`. */
function searchDirect(
  db: DbState<any>,
  date: unknown,
  origin?: unknown,
  destination?: unknown,
  leaveAfter?: string,
): DirectFlightRecord[] {
  const results: DirectFlightRecord[] = [];
  for (const flight of airline(db).flights.values()) {
    // An explicit null means "any", as Python's `is None` check does.
    if (origin !== undefined && origin !== null && flight.origin !== origin) continue;
    if (destination !== undefined && destination !== null && flight.destination !== destination) continue;
    if (!hasKey(flight.dates, date)) continue;
    const entry = flight.dates.get(date as string)!;
    if (entry.status !== "available") continue;
    if (leaveAfter !== undefined && !(flight.scheduled_departure_time_est >= leaveAfter)) continue;
    results.push({
      flight_number: flight.flight_number,
      origin: flight.origin,
      destination: flight.destination,
      status: "available",
      scheduled_departure_time_est: flight.scheduled_departure_time_est,
      scheduled_arrival_time_est: flight.scheduled_arrival_time_est,
      date: null,
      available_seats: entry.available_seats!,
      prices: entry.prices!,
    });
  }
  return results;
}

/** Payment for a reservation update (flights, baggage): checks, gift-card deduction, the payment entry. */
function paymentForUpdate(
  db: DbState<any>,
  userId: string,
  user: UserRecord,
  paymentId: unknown,
  totalPrice: Num,
): PaymentRecord | null {
  const method = getOrRaise(user.payment_methods, paymentId, "Payment method not found");
  const id = paymentId as string;
  if (method.source === "certificate")
    throw new ToolError("Certificate cannot be used to update reservation");
  if (method.source === "gift_card" && method.amount! < totalPrice.value)
    throw new ToolError("Gift card balance is not enough");
  if (method.source === "gift_card") {
    writableUser(db, userId).payment_methods.get(id)!.amount = method.amount! - totalPrice.value;
  }
  if (totalPrice.value === 0) return null;
  return validate<PaymentRecord>(Payment, { payment_id: id, amount: boxNum(totalPrice) });
}

// ---------------------------------------------------------------------------
// Tools

function bookReservation(db: DbState<any>, a: Record<string, unknown>): ReservationRecord {
  const flights = modelsIfAllDicts(a.flights, FlightInfo, "FlightInfo");
  const passengers = modelsIfAllDicts(a.passengers, Passenger, "Passenger");
  const payments = modelsIfAllDicts(a.payment_methods, Payment, "Payment");
  const user = getUser(db, a.user_id);
  const userId = a.user_id as string;
  const reservationId = RESERVATION_IDS.find((id) => !airline(db).reservations.has(id));
  if (reservationId === undefined) throw new ToolError("Too many reservations");

  const reservation = validate<ReservationRecord>(Reservation, {
    reservation_id: reservationId,
    user_id: userId,
    origin: a.origin,
    destination: a.destination,
    flight_type: a.flight_type,
    cabin: a.cabin,
    flights: [],
    passengers,
    payment_history: payments,
    created_at: AIRLINE_NOW,
    total_baggages: a.total_baggages,
    nonfree_baggages: a.nonfree_baggages,
    insurance: a.insurance,
  });
  // Reservation validation has accepted these lists, so they are lists of models now.
  const passengerCount = pyLen(passengers);
  const paymentList = reservation.payment_history;
  const cabin = a.cabin as string;

  let total = 0;
  const used: [string, string][] = [];
  const flightsConverted = flights !== a.flights;
  for (const info of pyIterate(flights)) {
    const flightNumber = attribute<string>(info, "flight_number", flightsConverted);
    const date = attribute<string>(info, "date", flightsConverted);
    const flight = getFlight(db, flightNumber);
    const entry = getFlightDate(db, flightNumber, date);
    if (entry.status !== "available")
      throw new ToolError(`Flight ${flightNumber} not available on date ${date}`);
    if (item(entry.available_seats!, cabin) < passengerCount)
      throw new ToolError(`Not enough seats on flight ${flightNumber}`);
    const price = item(entry.prices!, cabin);
    reservation.flights.push(
      validate<ReservationFlightRecord>(ReservationFlight, {
        flight_number: flightNumber,
        origin: flight.origin,
        destination: flight.destination,
        date,
        price,
      }),
    );
    used.push([flightNumber, date]);
    total += price * passengerCount;
  }
  let totalPrice: Num = { value: total, float: false };
  if (a.insurance === "yes") totalPrice.value += 30 * passengerCount;
  // The raw argument is used here, not the validated copy: a float stays a float, a string cannot be added.
  const bags = asNum(a.nonfree_baggages);
  if (!bags) {
    // Only numeric strings get past validation; `50 * "2"` repeats the string, which cannot be added to an int.
    throw new PyTypeError(
      `unsupported operand type(s) for +=: 'int' and '${pyTypeName(a.nonfree_baggages)}'`,
    );
  }
  totalPrice = { value: totalPrice.value + 50 * bags.value, float: bags.float };

  for (const payment of paymentList) {
    if (!user.payment_methods.has(payment.payment_id))
      throw new ToolError(`Payment method ${payment.payment_id} not found`);
    const method = user.payment_methods.get(payment.payment_id)!;
    if ((method.source === "gift_card" || method.source === "certificate") && method.amount! < payment.amount)
      throw new ToolError(`Not enough balance in payment method ${payment.payment_id}`);
  }
  const paid = paymentList.reduce((sum, payment) => sum + payment.amount, 0);
  if (paid !== totalPrice.value) {
    throw new ToolError(
      `Payment amount does not add up, total price is ${pyStr(boxNum(totalPrice))}, but paid ${paid}`,
    );
  }

  // Every check passed: charge, take the seats, store.
  const writable = writableUser(db, userId);
  for (const payment of paymentList) {
    const method = item(writable.payment_methods, payment.payment_id);
    if (method.source === "gift_card") method.amount = method.amount! - payment.amount;
    else if (method.source === "certificate") writable.payment_methods.delete(payment.payment_id);
  }
  for (const [flightNumber, date] of used) {
    const seats = writableFlightDate(db, flightNumber, date).available_seats!;
    seats.set(cabin, seats.get(cabin)! - passengerCount);
  }
  airline(db).reservations.set(reservationId, reservation);
  writable.reservations.push(reservationId);
  return reservation;
}

function cancelReservation(db: DbState<any>, a: Record<string, unknown>): ReservationRecord {
  getReservation(db, a.reservation_id);
  const reservation = writableReservation(db, a.reservation_id as string);
  // Every entry is negated, refunds included; seats and balances are left alone (upstream behaviour).
  const refunds = reservation.payment_history.map((payment) => ({
    payment_id: payment.payment_id,
    amount: -payment.amount,
  }));
  reservation.payment_history.push(...refunds);
  reservation.status = "cancelled";
  return reservation;
}

function sendCertificate(db: DbState<any>, a: Record<string, unknown>): string {
  const user = getUser(db, a.user_id);
  for (const id of CERTIFICATE_IDS) {
    if (user.payment_methods.has(id)) continue;
    const certificate = validate<Record<string, unknown>>(Certificate, {
      id,
      amount: a.amount,
      source: "certificate",
    });
    writableUser(db, a.user_id as string).payment_methods.set(id, certificate as never);
    return `Certificate ${id} added to user ${pyStr(a.user_id)} with amount ${pyStr(a.amount)}.`;
  }
  throw new ToolError("Too many certificates");
}

/** Python `x - y` for the baggage difference (numbers only; other types raise upstream's TypeError). */
function subtract(x: unknown, y: unknown): Num {
  const left = asNum(x);
  const right = asNum(y);
  if (!left || !right) {
    throw new PyTypeError(`unsupported operand type(s) for -: '${pyTypeName(x)}' and '${pyTypeName(y)}'`);
  }
  return { value: left.value - right.value, float: left.float || right.float };
}

function updateBaggages(db: DbState<any>, a: Record<string, unknown>): ReservationRecord {
  const current = getReservation(db, a.reservation_id);
  const user = getUser(db, current.user_id);
  const extra = subtract(a.nonfree_baggages, current.nonfree_baggages);
  // Python's max(0, x) keeps the int 0 unless x is strictly greater.
  const price: Num =
    extra.value > 0 ? { value: 50 * extra.value, float: extra.float } : { value: 0, float: false };
  const payment = paymentForUpdate(db, current.user_id, user, a.payment_id, price);
  const reservation = writableReservation(db, a.reservation_id as string);
  if (payment) reservation.payment_history.push(payment);
  reservation.total_baggages = a.total_baggages;
  reservation.nonfree_baggages = a.nonfree_baggages;
  return reservation;
}

function updateFlights(db: DbState<any>, a: Record<string, unknown>): ReservationRecord {
  const flights = modelsIfAllDicts(a.flights, FlightInfo, "FlightInfo");
  const current = getReservation(db, a.reservation_id);
  const user = getUser(db, current.user_id);
  const cabin = a.cabin;
  const passengerCount = pyLen(current.passengers);
  const converted = flights !== a.flights;
  let total = 0;
  const newFlights: ReservationFlightRecord[] = [];
  for (const info of pyIterate(flights)) {
    const flightNumber = attribute<string>(info, "flight_number", converted);
    const date = attribute<string>(info, "date", converted);
    const kept = current.flights.find(
      (leg) => leg.flight_number === flightNumber && leg.date === date && cabin === current.cabin,
    );
    if (kept) {
      total += kept.price * passengerCount;
      newFlights.push(kept);
      continue;
    }
    const flight = getFlight(db, flightNumber);
    const entry = getFlightDate(db, flightNumber, date);
    if (entry.status !== "available")
      throw new ToolError(`Flight ${flightNumber} not available on date ${date}`);
    if (item(entry.available_seats!, cabin) < passengerCount)
      throw new ToolError(`Not enough seats on flight ${flightNumber}`);
    const leg = validate<ReservationFlightRecord>(ReservationFlight, {
      flight_number: flightNumber,
      date,
      price: item(entry.prices!, cabin),
      origin: flight.origin,
      destination: flight.destination,
    });
    total += leg.price * passengerCount;
    newFlights.push(leg);
  }
  total -= current.flights.reduce((sum, leg) => sum + leg.price, 0) * passengerCount;
  const payment = paymentForUpdate(db, current.user_id, user, a.payment_id, { value: total, float: false });
  const reservation = writableReservation(db, a.reservation_id as string);
  if (payment) reservation.payment_history.push(payment);
  reservation.flights = newFlights;
  reservation.cabin = cabin;
  return reservation;
}

function updatePassengers(db: DbState<any>, a: Record<string, unknown>): ReservationRecord {
  const passengers = modelsIfAllDicts(a.passengers, Passenger, "Passenger");
  const current = getReservation(db, a.reservation_id);
  if (pyLen(passengers) !== pyLen(current.passengers))
    throw new ToolError("Number of passengers does not match");
  const reservation = writableReservation(db, a.reservation_id as string);
  // Stored as given (no validation on assignment): a list of models, or whatever the caller passed.
  reservation.passengers = deepClone(passengers) as unknown[];
  return reservation;
}

// ---------------------------------------------------------------------------
// Schemas

const str = { type: "string" };
const int = { type: "integer" };
const cabinSchema = { enum: ["business", "economy", "basic_economy"], type: "string" };
const modelOrDict = (name: string) => ({
  items: { anyOf: [{ $ref: `#/$defs/${name}` }, { additionalProperties: true, type: "object" }] },
  type: "array",
});
function objectDef(title: string, properties: Record<string, JsonSchema>): JsonSchema {
  return { properties, required: Object.keys(properties), title, type: "object" };
}
const flightInfoDef = objectDef("FlightInfo", {
  flight_number: { description: "Flight number, e.g. 'HAT001'.", title: "Flight Number", type: "string" },
  date: {
    description: "Date of the flight as 'YYYY-MM-DD', e.g. '2024-05-01'.",
    title: "Date",
    type: "string",
  },
});
const passengerDef = objectDef("Passenger", {
  first_name: { description: "The passenger's first name", title: "First Name", type: "string" },
  last_name: { description: "The passenger's last name", title: "Last Name", type: "string" },
  dob: { description: "Date of birth as YYYY-MM-DD", title: "Dob", type: "string" },
});
const paymentDef = objectDef("Payment", {
  payment_id: { description: "Identifier of the payment method", title: "Payment Id", type: "string" },
  amount: { description: "Amount paid, in dollars", title: "Amount", type: "integer" },
});
const reservationIdParam = param("reservation_id", str, "The reservation ID, e.g. 'ZFA04Y'.");
const paymentIdParam = param(
  "payment_id",
  str,
  "ID of a payment method saved in the user's profile, e.g. 'credit_card_7815826', " +
    "'gift_card_7815826' or 'certificate_7815826'.",
);
const originParam = param("origin", str, "Three-letter code of the origin airport, e.g. 'JFK'.");
const destinationParam = param(
  "destination",
  str,
  "Three-letter code of the destination airport, e.g. 'LAX'.",
);

const reservationResult = (reservation: ReservationRecord) => modelResult(Reservation, reservation);

/** The airline agent toolkit, in upstream's presentation order. */
export const airlineTools: ToolDef[] = [
  {
    name: "book_reservation",
    kind: "write",
    description: "Book a new reservation.",
    defs: { FlightInfo: flightInfoDef, Passenger: passengerDef, Payment: paymentDef },
    params: [
      param("user_id", str, "ID of the user making the booking, e.g. 'sara_doe_496'."),
      param("origin", str, "IATA code of the origin city, e.g. 'SFO'."),
      param("destination", str, "IATA code of the destination city, e.g. 'JFK'."),
      param("flight_type", { enum: ["round_trip", "one_way"], type: "string" }, "'one_way' or 'round_trip'."),
      param("cabin", cabinSchema, "Cabin class: 'basic_economy', 'economy' or 'business'."),
      param("flights", modelOrDict("FlightInfo"), "One object per flight segment of the booking."),
      param("passengers", modelOrDict("Passenger"), "One object per passenger travelling."),
      param(
        "payment_methods",
        modelOrDict("Payment"),
        "One object per payment method used, with its amount.",
      ),
      param("total_baggages", int, "Total number of checked bags on the reservation."),
      param("nonfree_baggages", int, "How many of those bags must be paid for."),
      param("insurance", { enum: ["yes", "no"], type: "string" }, "Whether travel insurance is bought."),
    ],
    run: ({ db }, a) => reservationResult(bookReservation(db, a)),
  },
  calculate,
  {
    name: "cancel_reservation",
    kind: "write",
    description: "Cancel an entire reservation.",
    params: [reservationIdParam],
    run: ({ db }, a) => reservationResult(cancelReservation(db, a)),
  },
  {
    name: "get_reservation_details",
    kind: "read",
    description: "Look up the details of a reservation.",
    params: [param("reservation_id", str, "The reservation ID, e.g. '8JX2WO'.")],
    run: ({ db }, a) => reservationResult(getReservation(db, a.reservation_id)),
  },
  {
    name: "get_user_details",
    kind: "read",
    description: "Look up a user's details, including their reservations.",
    params: [param("user_id", str, "The user ID, e.g. 'sara_doe_496'.")],
    run: ({ db }, a) => modelResult(User, getUser(db, a.user_id)),
  },
  {
    name: "list_all_airports",
    kind: "read",
    description: "List every airport served.",
    params: [],
    run: () =>
      modelResult(
        t.list(AirportCode),
        AIRPORTS.map(([iata, city]) => ({ iata, city })),
      ),
  },
  {
    name: "search_direct_flight",
    kind: "read",
    description: "Find direct flights between two airports on a given date.",
    params: [
      originParam,
      destinationParam,
      param("date", str, "Date of travel as 'YYYY-MM-DD', e.g. '2024-01-01'."),
    ],
    run: ({ db }, a) => modelResult(t.list(DirectFlight), searchDirect(db, a.date, a.origin, a.destination)),
  },
  {
    name: "search_onestop_flight",
    kind: "read",
    description: "Find connections with exactly one stop between two airports on a given date.",
    params: [
      originParam,
      destinationParam,
      param("date", str, "Date of travel as 'YYYY-MM-DD', e.g. '2024-05-01'."),
    ],
    run: ({ db }, a) => {
      const pairs: DirectFlightRecord[][] = [];
      for (const first of searchDirect(db, a.date, a.origin)) {
        const date = a.date as string;
        first.date = date;
        // Upstream builds the next day's date without zero padding ("2024-05-6"), which matches nothing.
        const secondDate = first.scheduled_arrival_time_est.includes("+1")
          ? `2024-05-${Number.parseInt(date.slice(-2), 10) + 1}`
          : date;
        for (const second of searchDirect(
          db,
          secondDate,
          first.destination,
          a.destination,
          first.scheduled_arrival_time_est,
        )) {
          second.date = secondDate;
          pairs.push([first, second]);
        }
      }
      return modelResult(t.list(t.list(DirectFlight)), pairs);
    },
  },
  {
    name: "send_certificate",
    kind: "write",
    description: "Give a user a travel certificate. Use with care!",
    params: [
      param("user_id", str, "ID of the user receiving the certificate, e.g. 'sara_doe_496'."),
      param("amount", int, "Value of the certificate."),
    ],
    run: ({ db }, a) => sendCertificate(db, a),
  },
  transferToHumanAgents,
  {
    name: "update_reservation_baggages",
    kind: "write",
    description: "Change the baggage information of a reservation.",
    params: [
      param("reservation_id", str, "The reservation ID, e.g. 'ZFA04Y'"),
      param("total_baggages", int, "The new total number of checked bags on the reservation."),
      param("nonfree_baggages", int, "The new number of bags that must be paid for."),
      paymentIdParam,
    ],
    run: ({ db }, a) => reservationResult(updateBaggages(db, a)),
  },
  {
    name: "update_reservation_flights",
    kind: "write",
    description: "Change the flights of a reservation.",
    defs: { FlightInfo: flightInfoDef },
    params: [
      reservationIdParam,
      param("cabin", cabinSchema, "Cabin class of the reservation"),
      param(
        "flights",
        modelOrDict("FlightInfo"),
        "One object per flight segment of the WHOLE new itinerary. Segments that do not change " +
          "must be included too.",
      ),
      paymentIdParam,
    ],
    run: ({ db }, a) => reservationResult(updateFlights(db, a)),
  },
  {
    name: "update_reservation_passengers",
    kind: "write",
    description: "Change the passenger details of a reservation.",
    defs: { Passenger: passengerDef },
    params: [reservationIdParam, param("passengers", modelOrDict("Passenger"), "One object per passenger.")],
    run: ({ db }, a) => reservationResult(updatePassengers(db, a)),
  },
  {
    name: "get_flight_status",
    kind: "read",
    description: "Get the status of a flight on a date.",
    params: [
      param("flight_number", str, "The flight number."),
      param("date", str, "The date of the flight."),
    ],
    run: ({ db }, a) => getFlightDate(db, a.flight_number, a.date).status,
  },
];
