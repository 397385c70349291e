/**
 * The airline data model (`FlightDB`, specs/airline.md §1) in the typed-model
 * DSL, plus the TypeScript shapes tool code works with.
 */
import type { CowMap } from "../../env/db-state.ts";
import { type ModelTy, t } from "../../env/model.ts";

const CABINS = ["business", "economy", "basic_economy"] as const;
const status = (value: string) => t.literal(value);

/** One date of a flight, discriminated by `status`. */
export const FlightDateStatus = t.union("status", {
  available: t.model("FlightDateStatusAvailable", {
    status: status("available"),
    available_seats: t.dict(t.int()),
    prices: t.dict(t.int()),
  }),
  landed: t.model("FlightDateStatusLanded", {
    status: status("landed"),
    actual_departure_time_est: t.str(),
    actual_arrival_time_est: t.str(),
  }),
  cancelled: t.model("FlightDateStatusCancelled", { status: status("cancelled") }),
  delayed: t.model("FlightDateStatusDelayed", {
    status: status("delayed"),
    estimated_departure_time_est: t.str(),
    estimated_arrival_time_est: t.str(),
  }),
  flying: t.model("FlightDateStatusFlying", {
    status: status("flying"),
    actual_departure_time_est: t.str(),
    estimated_arrival_time_est: t.str(),
  }),
  "on time": t.model("FlightDateStatusOnTime", {
    status: status("on time"),
    estimated_departure_time_est: t.str(),
    estimated_arrival_time_est: t.str(),
  }),
});

/** A scheduled flight with its per-date status. */
export const Flight = t.model("Flight", {
  flight_number: t.str(),
  origin: t.str(),
  destination: t.str(),
  scheduled_departure_time_est: t.str(),
  scheduled_arrival_time_est: t.str(),
  dates: t.dict(FlightDateStatus),
});

/** A passenger (saved on a user or travelling on a reservation). */
export const Passenger = t.model("Passenger", { first_name: t.str(), last_name: t.str(), dob: t.str() });

/** A certificate payment method; `send_certificate` constructs these. */
export const Certificate = t.model("Certificate", {
  source: status("certificate"),
  id: t.str(),
  amount: t.float(),
});

/** A user's payment method, discriminated by `source`. */
export const PaymentMethod = t.union("source", {
  credit_card: t.model("CreditCard", {
    source: status("credit_card"),
    id: t.str(),
    brand: t.str(),
    last_four: t.str(),
  }),
  gift_card: t.model("GiftCard", { source: status("gift_card"), id: t.str(), amount: t.float() }),
  certificate: Certificate,
});

/** A customer. */
export const User = t.model("User", {
  user_id: t.str(),
  name: t.model("Name", { first_name: t.str(), last_name: t.str() }),
  address: t.model("Address", {
    address1: t.str(),
    address2: [t.optional(t.str()), null],
    city: t.str(),
    country: t.str(),
    state: t.str(),
    zip: t.str(),
  }),
  email: t.str(),
  dob: t.str(),
  payment_methods: t.dict(PaymentMethod),
  saved_passengers: t.list(Passenger),
  membership: t.literal("gold", "silver", "regular"),
  reservations: t.list(t.str()),
});

/** One leg of a reservation, with the price paid per passenger. */
export const ReservationFlight = t.model("ReservationFlight", {
  flight_number: t.str(),
  origin: t.str(),
  destination: t.str(),
  date: t.str(),
  price: t.int(),
});

/** A payment (positive) or refund (negative) on a reservation; also a booking argument. */
export const Payment = t.model("Payment", { payment_id: t.str(), amount: t.int() });

/** A flight and date named in a tool argument. */
export const FlightInfo = t.model("FlightInfo", { flight_number: t.str(), date: t.str() });

/** A reservation. */
export const Reservation = t.model("Reservation", {
  reservation_id: t.str(),
  user_id: t.str(),
  origin: t.str(),
  destination: t.str(),
  flight_type: t.literal("round_trip", "one_way"),
  cabin: t.literal(...CABINS),
  flights: t.list(ReservationFlight),
  passengers: t.list(Passenger),
  payment_history: t.list(Payment),
  created_at: t.str(),
  total_baggages: t.int(),
  nonfree_baggages: t.int(),
  insurance: t.literal("yes", "no"),
  status: [t.optional(t.literal("cancelled")), null],
});

/** A search result: an available flight on one date (`date` is filled in by one-stop search). */
export const DirectFlight = t.model("DirectFlight", {
  flight_number: t.str(),
  origin: t.str(),
  destination: t.str(),
  status: status("available"),
  scheduled_departure_time_est: t.str(),
  scheduled_arrival_time_est: t.str(),
  date: [t.optional(t.str()), null],
  available_seats: t.dict(t.int()),
  prices: t.dict(t.int()),
});

/** An airport in `list_all_airports`. */
export const AirportCode = t.model("AirportCode", { iata: t.str(), city: t.str() });

/** The whole airline database (unknown top-level keys are rejected). */
export const FlightDb: ModelTy = t.model(
  "FlightDB",
  { flights: t.dict(Flight), users: t.dict(User), reservations: t.dict(Reservation) },
  "forbid",
);

/** A flight-date entry as stored (fields beyond `status` depend on it). */
export interface FlightDateRecord {
  status: string;
  available_seats?: Map<string, number>;
  prices?: Map<string, number>;
  [field: string]: unknown;
}

/** A flight as stored. */
export interface FlightRecord {
  flight_number: string;
  origin: string;
  destination: string;
  scheduled_departure_time_est: string;
  scheduled_arrival_time_est: string;
  dates: Map<string, FlightDateRecord>;
}

/** A payment method as stored (`amount` only on gift cards and certificates). */
export interface PaymentMethodRecord {
  source: string;
  id: string;
  amount?: number;
  [field: string]: unknown;
}

/** A user as stored. */
export interface UserRecord {
  user_id: string;
  payment_methods: Map<string, PaymentMethodRecord>;
  reservations: string[];
  [field: string]: unknown;
}

/** A reservation leg as stored. */
export interface ReservationFlightRecord {
  flight_number: string;
  origin: string;
  destination: string;
  date: string;
  price: number;
}

/** A payment entry as stored. */
export interface PaymentRecord {
  payment_id: string;
  amount: number;
}

/**
 * A reservation as stored. Fields that tools assign without validation
 * (baggage counts, cabin, passengers) may hold whatever the caller passed.
 */
export interface ReservationRecord {
  reservation_id: string;
  user_id: string;
  origin: string;
  destination: string;
  flight_type: string;
  cabin: unknown;
  flights: ReservationFlightRecord[];
  passengers: unknown[];
  payment_history: PaymentRecord[];
  created_at: string;
  total_baggages: unknown;
  nonfree_baggages: unknown;
  insurance: string;
  status: string | null;
}

/** The top-level fields of a forked airline DB. */
export interface AirlineRoot {
  flights: CowMap<FlightRecord>;
  users: CowMap<UserRecord>;
  reservations: CowMap<ReservationRecord>;
}
