/**
 * The built-in rule set of the category classifier: per category, terms whose presence in an
 * input suggests it. Strong terms (phrases that rarely occur outside the category) count 2,
 * others 1. Terms are matched on word boundaries, case-insensitively; a term ending in `*`
 * matches any word starting with it. Measured against `test/fixtures/categories.jsonl`
 * (docs/rankings.md gives the accuracy).
 * @module
 */
import type { Category } from '../types';

/** One category's terms. */
export interface CategoryRule {
  category: Category;
  strong: readonly string[];
  weak: readonly string[];
}

/** In tie-break order: on equal scores the earlier category wins. */
export const CATEGORY_RULES: readonly CategoryRule[] = [
  {
    category: 'marketing/seo',
    strong: ['seo', 'search engine optimi*', 'meta description*', 'backlink*', 'keyword research', 'serp*', 'organic traffic', 'search ranking*', 'long-tail keyword*', 'alt text'],
    weak: ['keyword*', 'ranking', 'google search', 'crawl*', 'sitemap*', 'domain authority', 'title tag*', 'indexing'],
  },
  {
    category: 'marketing',
    strong: ['marketing', 'ad copy', 'slogan*', 'tagline*', 'brand voice', 'campaign*', 'call to action', 'press release', 'landing page', 'newsletter*', 'product launch'],
    weak: ['brand*', 'customers', 'audience', 'promot*', 'advertis*', 'social media', 'instagram', 'linkedin post', 'engagement', 'conversion*', 'sales pitch', 'email blast', 'product description*'],
  },
  {
    category: 'programming',
    strong: ['python', 'javascript', 'typescript', 'java', 'c\\+\\+', 'rust', 'golang', 'sql', 'regex', 'function', 'compile*', 'stack trace', 'null pointer', 'api endpoint*', 'unit test*', 'refactor*', 'git', 'npm', 'docker*', 'bug', 'debug*', 'exception', 'syntax error'],
    weak: ['code', 'script', 'variable*', 'array*', 'class', 'method*', 'library', 'framework', 'loop', 'query', 'json', 'runtime', 'repository', 'deploy*', 'algorithm*'],
  },
  {
    category: 'translation',
    strong: ['translat*', 'into english', 'into french', 'into spanish', 'into german', 'into japanese', 'into chinese', 'into italian', 'into portuguese', 'en français', 'auf deutsch', 'en español'],
    weak: ['french', 'spanish', 'german', 'japanese', 'mandarin', 'italian', 'portuguese', 'language pair', 'localiz*', 'subtitle*'],
  },
  {
    category: 'roleplay',
    strong: ['roleplay*', 'role-play*', 'role play', 'pretend you are', 'you are a character', 'stay in character', 'in character', 'act as', 'dungeon master', 'fantasy adventure', '\\*smiles\\*', '\\*laughs\\*', 'your character'],
    weak: ['character', 'tavern', 'quest', 'adventure', 'wizard', 'dragon', 'knight', 'story continues', 'scene', 'persona'],
  },
  {
    category: 'legal',
    strong: ['contract*', 'lawsuit*', 'attorney*', 'lawyer*', 'plaintiff*', 'defendant*', 'statute*', 'liabilit*', 'indemnif*', 'copyright infringement', 'gdpr', 'terms of service', 'non-disclosure', 'nda', 'court'],
    weak: ['legal', 'law', 'clause*', 'tenant*', 'landlord*', 'lease', 'jurisdiction', 'compliance', 'regulation*', 'rights', 'sue', 'judge', 'trademark*'],
  },
  {
    category: 'finance',
    strong: ['stock*', 'portfolio*', 'dividend*', 'interest rate*', 'inflation', 'mortgage*', 'etf*', 'bond yield*', 'balance sheet', 'cash flow', 'revenue', 'ebitda', 'tax return*', 'retirement savings', '401\\(k\\)', 'cryptocurrenc*', 'bitcoin'],
    weak: ['invest*', 'budget*', 'loan*', 'bank*', 'financial', 'finance', 'earnings', 'profit*', 'price*', 'market cap', 'tax*', 'savings', 'credit', 'debt'],
  },
  {
    category: 'health',
    strong: ['symptom*', 'diagnos*', 'diabetes', 'blood pressure', 'medication*', 'side effect*', 'vaccin*', 'cholesterol', 'therapy', 'physician*', 'doctor*', 'patient*', 'disease*', 'infection*'],
    weak: ['health*', 'pain', 'sleep', 'diet', 'nutrition', 'exercise', 'calorie*', 'mental', 'anxiety', 'depression', 'fever', 'headache*', 'allerg*', 'weight loss', 'medical'],
  },
  {
    category: 'science',
    strong: ['photosynthesis', 'quantum', 'molecule*', 'atom*', 'dna', 'gene*', 'evolution', 'gravity', 'thermodynamic*', 'chemical reaction*', 'black hole*', 'electron*', 'protein*', 'cell division', 'relativity', 'experiment*'],
    weak: ['physics', 'chemistry', 'biology', 'astronom*', 'planet*', 'energy', 'species', 'hypothesis', 'particle*', 'climate', 'ecosystem*', 'scientific', 'laboratory'],
  },
  {
    category: 'technology',
    strong: ['smartphone*', 'laptop*', 'wi-fi', 'wifi', 'router*', 'cloud computing', 'artificial intelligence', 'machine learning', '5g', 'gpu*', 'cpu*', 'operating system', 'iphone', 'android', 'blockchain', 'semiconductor*', 'kubernetes', 'data center*'],
    weak: ['technology', 'tech', 'software', 'hardware', 'device*', 'app', 'apps', 'internet', 'computer*', 'gadget*', 'battery', 'bluetooth', 'startup*', 'ai', 'chip*', 'server*', 'network*'],
  },
  {
    category: 'academia',
    strong: ['thesis', 'dissertation*', 'literature review', 'peer review*', 'abstract for', 'citation*', 'apa style', 'mla format', 'research paper*', 'academic', 'journal article*', 'essay', 'syllabus', 'phd', 'professor*'],
    weak: ['university', 'student*', 'lecture*', 'semester', 'course', 'homework', 'exam*', 'study', 'studies', 'scholar*', 'paper', 'methodology', 'argument'],
  },
  {
    category: 'trivia',
    strong: ['trivia', 'quiz', 'fun fact*', 'who was the first', 'what is the capital', 'capital of', 'which country', 'how many', 'who invented', 'who wrote', 'in what year', 'tallest', 'largest', 'longest'],
    weak: ['world record*', 'famous', 'history', 'who won', 'guess', 'did you know', 'when did', 'oldest', 'smallest'],
  },
];
