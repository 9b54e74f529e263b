import { Logger } from '@nestjs/common';

// Unit suites assert on results, not on log text; the e2e suites read the real server's stderr.
Logger.overrideLogger(false);
