/**
 * The classifier thread's entry: classifies the texts it is sent. The category rules are
 * synchronous regex work (milliseconds on a long input), so they run here, never on the thread
 * that serves requests.
 * @module
 */
import { serveJobs } from '../../workers/job-thread';
import type { Classification } from '../sampler';
import { classifyText } from './index';

serveJobs<string, Classification>(classifyText);
