import type { Rng } from '../../system/rng.ts';

/** A generated word problem and its exact integer answer. */
export interface Problem {
  question: string;
  answer: number;
  steps: number;
}

type Template = (rng: Rng) => Problem;

const NAMES = ['Ada', 'Bruno', 'Chen', 'Dara', 'Emeka', 'Farah', 'Goran', 'Hana', 'Ines', 'Jun'];

const templates: Template[] = [
  (rng) => {
    const name = rng.pick(NAMES);
    const trays = rng.int(3, 12);
    const per = rng.int(4, 12);
    const sold = rng.int(5, trays * per - 5);
    const given = rng.int(1, Math.max(1, trays * per - sold - 1));
    return {
      question: `${name} bakes ${trays} trays of ${per} muffins each, sells ${sold} of them and gives ${given} to a neighbour. How many muffins are left?`,
      answer: trays * per - sold - given,
      steps: 3,
    };
  },
  (rng) => {
    const name = rng.pick(NAMES);
    const price = rng.int(2, 15);
    const count = rng.int(3, 20);
    const paid = price * count + rng.int(1, 50);
    return {
      question: `${name} buys ${count} notebooks at ${price} dollars each and pays with ${paid} dollars. How many dollars of change does ${name} get?`,
      answer: paid - price * count,
      steps: 2,
    };
  },
  (rng) => {
    const boxes = rng.int(4, 15);
    const per = rng.int(6, 24);
    const broken = rng.int(1, boxes);
    const shelves = rng.pick([2, 3, 4, 5]);
    const total = boxes * per - broken;
    const extra = (shelves - (total % shelves)) % shelves;
    return {
      question: `A shop receives ${boxes} boxes of ${per} cups, finds ${broken} broken, then buys ${extra} more cups so the rest can be split evenly over ${shelves} shelves. How many cups go on each shelf?`,
      answer: (total + extra) / shelves,
      steps: 4,
    };
  },
  (rng) => {
    const name = rng.pick(NAMES);
    const start = rng.int(20, 200);
    const weeks = rng.int(2, 9);
    const saved = rng.int(5, 40);
    const spent = rng.int(1, start);
    return {
      question: `${name} has ${start} dollars, saves ${saved} dollars a week for ${weeks} weeks, then spends ${spent} dollars on a bike. How many dollars does ${name} have now?`,
      answer: start + saved * weeks - spent,
      steps: 3,
    };
  },
  (rng) => {
    const rows = rng.int(4, 14);
    const seats = rng.int(6, 20);
    const groups = rng.int(2, 6);
    const taken = rng.int(1, rows * seats - groups * 3);
    return {
      question: `A hall has ${rows} rows of ${seats} seats and ${taken} seats are taken. ${groups} groups of 3 people arrive and sit down. How many seats are still free?`,
      answer: rows * seats - taken - groups * 3,
      steps: 3,
    };
  },
  (rng) => {
    const name = rng.pick(NAMES);
    const km = rng.int(3, 25);
    const days = rng.int(2, 7);
    const rest = rng.int(1, days - 1);
    const bonus = rng.int(1, 15);
    return {
      question: `${name} runs ${km} km on each of ${days} days but rests on ${rest} of them, then adds one long run of ${bonus} km. How many km does ${name} run in total?`,
      answer: km * (days - rest) + bonus,
      steps: 3,
    };
  },
];

export function generateProblem(rng: Rng): Problem {
  return rng.pick(templates)(rng);
}
