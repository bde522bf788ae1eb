// What each message of the peer MIME corpus (PEER_CORPUS_DIR/mime, 71 messages written by other
// projects) must give, written by reading each message: its From header, whether a part is
// typed application/pdf (or application/octet-stream named .pdf) at the message's own level —
// a PDF inside a forwarded message/rfc822 is not one of its parts — and whether that part's
// decoded content starts with %PDF-. Outcomes are reason codes, so the table holds whether a
// rule is applied in the SMTP session or by the worker. Where several rules fail, the first in
// the policy's order counts: sender, then PDF, then subject.
//
// Two ways a message is sent:
// - asSent: the message as it is, with a sender directory that registers its From address.
//   A message without a From address, or with one no directory can hold (no dot in the domain,
//   raw UTF-8), is SenderNotRegistered. This column is the message's own rules only (the
//   parse-and-decide path, test/integration/peer-mime-corpus.test.ts): no deep PDF check.
// - resigned: From and Message-ID replaced by a registered sender's, CRLF line ends, a leading
//   mbox "From " line dropped, DKIM-signed (test/helpers/hostile-messages.ts, resignAsAcme),
//   through the whole gateway, deep PDF checks included: a PDF that is only a fragment (no
//   trailer, which qpdf --check confirms) is PdfDamaged.
import type { RejectionReason } from '../../src/errors.js';

export type PeerOutcome = 'submitted' | Exclude<RejectionReason, 'ApiRejected'>;

export interface PeerMimeExpectation {
  /** Path under the corpus's mime/ folder. */
  readonly file: string;
  /** The From address as written, lower-cased; null when the message has none. */
  readonly from: string | null;
  readonly asSent: PeerOutcome;
  readonly resigned: PeerOutcome;
  /** PDF parts of the letter when it is submitted (0 otherwise). */
  readonly pdfs: number;
  readonly why: string;
}

const row = (
  file: string,
  from: string | null,
  asSent: PeerOutcome,
  resigned: PeerOutcome,
  pdfs: number,
  why: string,
): PeerMimeExpectation => ({ file, from, asSent, resigned, pdfs, why });

const NO_FROM = 'SenderNotRegistered';
const NO_PDF = 'NoPdfAttachment';

export const PEER_MIME_EXPECTATIONS: readonly PeerMimeExpectation[] = [
  row(
    'apache+james-mime4j/attachment-filename-encoding-Latin1.msg.eml',
    null,
    NO_FROM,
    NO_PDF,
    0,
    'no From, no Subject; one text/plain attachment',
  ),
  row(
    'apache+james-mime4j/attachment-filename-encoding-UTF8.msg.eml',
    null,
    NO_FROM,
    NO_PDF,
    0,
    'no From, no Subject; one text/plain attachment',
  ),
  row(
    'apache+james-mime4j/bad-newlines-multiple-parts-base64.msg.eml',
    null,
    NO_FROM,
    NO_PDF,
    0,
    'no From; the whole body is a base64 message/rfc822 holding text only',
  ),
  row(
    'apache+james-mime4j/badbound.msg.eml',
    'postmaster@challenge.uscom.com',
    NO_PDF,
    NO_PDF,
    0,
    'a bounce: text/plain and a message/rfc822',
  ),
  row(
    'apache+james-mime4j/base64encoded-rfc822message.msg.eml',
    null,
    NO_FROM,
    NO_PDF,
    0,
    'no From; a base64 message/rfc822 holding text only',
  ),
  row(
    'apache+james-mime4j/boundary-name-clash.msg.eml',
    null,
    NO_FROM,
    'PdfDamaged',
    1,
    'no From; application/pdf whose 31 bytes start with %PDF-1.; the PDF is a fragment no viewer opens (qpdf --check: no trailer), so the deep checks give PdfDamaged',
  ),
  row('apache+james-mime4j/multi-nested.msg.eml', 'whorfin@yoyodyne.com', NO_PDF, NO_PDF, 0, 'GIFs, richtext and a message/rfc822; no PDF'),
  row(
    'jhillyerd+enmime/attachment-octet.raw.eml',
    'me@here.com',
    NO_PDF,
    NO_PDF,
    0,
    'application/octet-stream with no file name (file= is no name parameter)',
  ),
  row('jhillyerd+enmime/bad-final-boundary.raw.eml', 'james@makita.skynet', NO_PDF, NO_PDF, 0, 'a zip attachment'),
  row(
    'jhillyerd+enmime/inlinemultipart.raw.eml',
    'bob@extern',
    NO_FROM,
    'PdfDamaged',
    1,
    'From bob@extern has no dot in its domain, no directory holds it; test.pdf starts with %PDF-1.2; the PDF is a fragment no viewer opens (qpdf --check: no trailer), so the deep checks give PdfDamaged',
  ),
  row('jhillyerd+enmime/malformed-base64-attach.raw.eml', 'james@makita.skynet', NO_PDF, NO_PDF, 0, 'an application/msword attachment'),
  row('jhillyerd+enmime/mime-bad-8bit-filename.raw.eml', 'pavel.bazika@some.domain', NO_PDF, NO_PDF, 0, 'an application/msword attachment'),
  row(
    'jhillyerd+enmime/mime-bad-content-type.raw.eml',
    'bookings@easyhotel.com',
    'submitted',
    'PdfDamaged',
    1,
    'Content-Type "application/pdf name=…" (no semicolon) is still application/pdf; content %PDF-1.2; the PDF is a fragment no viewer opens (qpdf --check: no trailer), so the deep checks give PdfDamaged',
  ),
  row(
    'jhillyerd+enmime/mime-blank-media-name.raw.eml',
    'bookings@easyhotel.com',
    'submitted',
    'PdfDamaged',
    1,
    'application/pdf with name="" and a file name in Content-Disposition; content %PDF-1.2; the PDF is a fragment no viewer opens (qpdf --check: no trailer), so the deep checks give PdfDamaged',
  ),
  row(
    'jhillyerd+enmime/mime-duplicate-param.raw.eml',
    'bookings@easyhotel.com',
    'submitted',
    'PdfDamaged',
    1,
    'application/pdf with name= twice; content %PDF-1.2; the PDF is a fragment no viewer opens (qpdf --check: no trailer), so the deep checks give PdfDamaged',
  ),
  row(
    'jhillyerd+enmime/mime-signed.raw.eml',
    'jamehi03@jamehi03lx.noa.com',
    NO_PDF,
    NO_PDF,
    0,
    'multipart/signed: text and a PGP signature',
  ),
  row(
    'jhillyerd+enmime/mime-unquoted-tspecials-param.raw.eml',
    'bookings@easyhotel.com',
    'submitted',
    'PdfDamaged',
    1,
    'application/pdf named Invoice_(…).pdf unquoted; content %PDF-1.2; the PDF is a fragment no viewer opens (qpdf --check: no trailer), so the deep checks give PdfDamaged',
  ),
  row('jhillyerd+enmime/missing-content-type.raw.eml', 'james@makita.skynet', NO_PDF, NO_PDF, 0, 'plain text, no Content-Type'),
  row(
    'jhillyerd+enmime/multipart-wo-boundary.raw.eml',
    'mailer-daemon@example.com',
    NO_PDF,
    NO_PDF,
    0,
    'multipart/report without a boundary: no parts at all',
  ),
  row('jhillyerd+enmime/unk-charset-part.raw.eml', 'james@makita.skynet', NO_PDF, NO_PDF, 0, 'a zip attachment'),
  row('mikel+mail/attachment_content_location.eml', 'foo@example.com', NO_PDF, NO_PDF, 0, 'an image/jpeg'),
  row(
    'mikel+mail/attachment_message_rfc822.eml',
    'foo@example.com',
    NO_PDF,
    NO_PDF,
    0,
    'its only PDF is inside a forwarded message/rfc822',
  ),
  row(
    'mikel+mail/attachment_message_rfc822_inline_image.eml',
    'test@example.com',
    NO_PDF,
    NO_PDF,
    0,
    'an inline PNG; the PDF mail is a forwarded message/rfc822',
  ),
  row('mikel+mail/attachment_nonascii_filename.eml', 'foo@example.com', NO_PDF, NO_PDF, 0, 'a text/plain attachment'),
  row('mikel+mail/attachment_only_email.eml', 'rfinnie@domain.dom', NO_PDF, NO_PDF, 0, 'the whole body is a gzip'),
  row(
    'mikel+mail/attachment_pdf.eml',
    'xxxx@xxxx.com',
    'submitted',
    'PdfDamaged',
    1,
    'broken.pdf, application/pdf, content %PDF-1.4; the PDF is a fragment no viewer opens (qpdf --check: no trailer), so the deep checks give PdfDamaged',
  ),
  row(
    'mikel+mail/attachment_pdf_lf.eml',
    'xxxx@xxxx.com',
    'submitted',
    'PdfDamaged',
    1,
    'broken.pdf, application/pdf, content %PDF-1.4; bare LF; the PDF is a fragment no viewer opens (qpdf --check: no trailer), so the deep checks give PdfDamaged',
  ),
  row(
    'mikel+mail/attachment_pdf_non_ascii.eml',
    'xxxx@xxxx.com',
    'submitted',
    'PdfDamaged',
    1,
    'broken.pdf, application/pdf, content %PDF-1.4; non-ASCII text; the PDF is a fragment no viewer opens (qpdf --check: no trailer), so the deep checks give PdfDamaged',
  ),
  row(
    'mikel+mail/attachment_with_base64_encoded_name.eml',
    'xxxxxxxxx.xxxxxxx@gmail.com',
    'NotAPdf',
    'NotAPdf',
    0,
    'application/pdf whose content is a PKCS#7 signature, not %PDF-',
  ),
  row(
    'mikel+mail/attachment_with_encoded_name.eml',
    'xxxxxxxxx.xxxxxxx@gmail.com',
    NO_PDF,
    NO_PDF,
    0,
    'application/octet-stream named .mp3',
  ),
  row('mikel+mail/attachment_with_quoted_filename.eml', 'jeff@37signals.com', NO_PDF, NO_PDF, 0, 'an image/jpeg'),
  row('mikel+mail/attachment_with_unquoted_name.eml', 'foo@example.com', NO_PDF, NO_PDF, 0, 'a text/plain attachment'),
  row('mikel+mail/content_transfer_encoding_empty.eml', '3712f2@msa.hinet.net', NO_PDF, NO_PDF, 0, 'one text/html body'),
  row('mikel+mail/content_transfer_encoding_x_uuencode.eml', 'lpeters@pacifier.com', NO_PDF, NO_PDF, 0, 'an application/msword attachment'),
  row('mikel+mail/email_with_similar_boundaries.eml', 'xxxxxx@xxxxxxxx.xxx', NO_PDF, NO_PDF, 0, 'application/octetstream (sic) LOGO.png'),
  row('mikel+mail/encoding_madness.eml', 'no-reply@crm.el-example.org', NO_PDF, NO_PDF, 0, 'text only'),
  row('mikel+mail/japanese_attachment_long_name.eml', 'mikel@test.lindsaar.net', NO_PDF, NO_PDF, 0, 'a text/plain attachment'),
  row('mikel+mail/japanese_iso_2022.eml', 'raasdnil@gmail.com', NO_PDF, NO_PDF, 0, 'text only'),
  row('mikel+mail/japanese_shift_jis.eml', 'xxxxxxx@docomo.ne.jp', NO_PDF, NO_PDF, 0, 'text only'),
  row('mikel+mail/ks_c_5601-1987.eml', 'from@example.com', NO_PDF, NO_PDF, 0, 'text only'),
  row('mikel+mail/multiple_content_types.eml', 'redacted@flashmail.net', NO_PDF, NO_PDF, 0, 'text and HTML only'),
  row('mikel+mail/raw_email10.eml', 'xxx@xxxx.xxx', NO_PDF, NO_PDF, 0, 'text only (and no Subject)'),
  row('mikel+mail/raw_email7.eml', 'foo@example.com', 'NotAPdf', 'NotAPdf', 0, 'test.pdf typed application/pdf holds "blah blah blah"'),
  row('mikel+mail/raw_email_bad_time.eml', 'yusuf75thu@auracom.net', NO_PDF, NO_PDF, 0, 'text and HTML only'),
  row('mikel+mail/raw_email_with_binary_encoded.eml', 'email_test@me.nowhere', NO_PDF, NO_PDF, 0, 'a binary image/jpeg'),
  row('mikel+mail/raw_email_with_illegal_boundary.eml', 'email_test@me.nowhere', NO_PDF, NO_PDF, 0, 'text and HTML only'),
  row(
    'mikel+mail/raw_email_with_mimepart_without_content_type.eml',
    'mailer-daemon@antivirus.uqam.ca',
    NO_PDF,
    NO_PDF,
    0,
    'a delivery report',
  ),
  row(
    'mikel+mail/raw_email_with_multipart_mixed_quoted_boundary.eml',
    'email_test@me.nowhere',
    'submitted',
    'PdfDamaged',
    1,
    'broken.pdf, application/pdf, content %PDF-1.4; the PDF is a fragment no viewer opens (qpdf --check: no trailer), so the deep checks give PdfDamaged',
  ),
  row('mikel+mail/raw_email_with_nested_attachment.eml', 'jamis@37signals.com', NO_PDF, NO_PDF, 0, 'a PNG and an S/MIME signature'),
  row('mikel+mail/report_422.eml', 'mailer-daemon@tppppp.com.au', NO_PDF, NO_PDF, 0, 'a delivery report'),
  row(
    'mikel+mail/utf8_headers.eml',
    'jdöe@mächine.example',
    NO_FROM,
    NO_PDF,
    0,
    'From is raw UTF-8 (RFC 6532), which no directory holds; text only',
  ),
  row('nodemailer+mailparser/delivery-status.eml', 'mailer-daemon@amazonses.com', NO_PDF, NO_PDF, 0, 'a delivery report'),
  row('nodemailer+mailparser/nodemailer.eml', 'andris@kreata.ee', NO_PDF, NO_PDF, 0, 'images and a text attachment'),
  row(
    'php-mime-mail-parser+php-mime-mail-parser/issue133.eml',
    'name@company.com',
    NO_PDF,
    NO_PDF,
    0,
    'application/octet-stream named attach/01',
  ),
  row('php-mime-mail-parser+php-mime-mail-parser/issue158a.eml', 'example@example.com', NO_PDF, NO_PDF, 0, 'HTML and a message/rfc822'),
  row(
    'php-mime-mail-parser+php-mime-mail-parser/issue182.eml',
    'name@company.com',
    NO_PDF,
    NO_PDF,
    0,
    'application/octet-stream named attach02',
  ),
  row('php-mime-mail-parser+php-mime-mail-parser/issue230.eml', 'science@news-s.info', NO_PDF, NO_PDF, 0, 'text and HTML only'),
  row(
    'php-mime-mail-parser+php-mime-mail-parser/issue250.eml',
    null,
    NO_FROM,
    NO_PDF,
    0,
    'no From; an image/png whose file name ends in .pdf is still an image',
  ),
  row(
    'php-mime-mail-parser+php-mime-mail-parser/issue274.eml',
    'guest@localhost',
    NO_FROM,
    'submitted',
    1,
    'From guest@localhost has no dot in its domain; one real PDF (%PDF-1.5) among .docx, .odt, PNG',
  ),
  row(
    'php-mime-mail-parser+php-mime-mail-parser/m0013.eml',
    'firstname.name@groupe-company.com',
    'NotAPdf',
    'NotAPdf',
    0,
    'application/pdf whose content is the word "underscore"',
  ),
  row('php-mime-mail-parser+php-mime-mail-parser/m0018.eml', 'name@company.com', NO_PDF, NO_PDF, 0, 'a JPEG and a text attachment'),
  row(
    'php-mime-mail-parser+php-mime-mail-parser/m0024.eml',
    'blablafakeemail@provider.fr',
    NO_PDF,
    NO_PDF,
    0,
    'an application/msword attachment',
  ),
  row('postalsys+postal-mime/arf.eml', 'abusedesk@example.com', NO_PDF, NO_PDF, 0, 'an abuse report'),
  row('postalsys+postal-mime/bounce.eml', 'mailer-daemon@messagingengine.com', NO_PDF, NO_PDF, 0, 'a delivery report'),
  row('postalsys+postal-mime/calendar-event.eml', 'andris@postalsys.com', NO_PDF, NO_PDF, 0, 'a calendar invitation'),
  row('postalsys+postal-mime/mimetorture.eml', 'rfinnie@domain.dom', NO_PDF, NO_PDF, 0, 'many parts, none a PDF'),
  row('python+cpython/msg_15.eml', 'xx@xx.dk', NO_PDF, NO_PDF, 0, 'a GIF'),
  row('stalwartlabs+mail-parser/005.eml', null, NO_FROM, NO_PDF, 0, 'no From; text parts only'),
  row('stalwartlabs+mail-parser/012.eml', null, NO_FROM, NO_PDF, 0, 'no From; empty message/rfc822 parts'),
  row('stalwartlabs+mail-parser/015.eml', 'jsterr@proxforge.de', NO_PDF, NO_PDF, 0, 'three message/rfc822 attachments'),
  row('stalwartlabs+mail-parser/016.eml', null, NO_FROM, NO_PDF, 0, 'no From; nested multiparts without a PDF'),
];
