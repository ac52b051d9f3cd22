/* model_net.h - the modelled clock's graph on the messages between job folders (hosts), for
 * the network transport (device/net/net_ucx.c; docs/MODEL.md, "Across hosts").
 *
 * Each job folder records its tasks into its own model.shm. A message to another folder
 * carries the nodes of this folder's file (its own and the mirrors it holds of other
 * folders) that were not sent on that connection yet; the receiver appends the ones it does
 * not hold before applying the message. A node is in the file before its task runs, so
 * whatever a message's record can be waited for after, its whole causal past is in the
 * receiver's file by then: a host simulating its folder's file sees every node that decides
 * its times, and emu_model_merge makes one graph of them. */
#ifndef HCEMU_DEVICE_DIAG_MODEL_NET_H
#define HCEMU_DEVICE_DIAG_MODEL_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether the model records here (HCEMU_TIME=model). */
bool emu_model_net_on(void);
/* The nodes in this folder's file now (pack nodes [*sent, upto) of them). */
uint32_t emu_model_net_count(void);
#define EMU_MODEL_NET_NODE 80u /* bytes per node on the wire */
/* Sender: nodes [*sent, upto) not yet sent on a connection to folder `peer` (cursor *sent,
 * advanced past what is sent for good) into out[0..cap); returns the bytes. *whole is false
 * when some did not fit (the receiver's modelled times become unavailable). */
size_t emu_model_net_pack(uint32_t *sent, uint32_t upto, uint64_t peer, uint8_t *out, size_t cap,
                          bool *whole);
/* Receiver: append the nodes of buf it does not hold. `whole` false, or no nodes from a
 * sender whose model is off (`sender_on` false), makes its modelled times unavailable. */
void emu_model_net_unpack(const void *buf, size_t len, bool whole, bool sender_on,
                          uint32_t src_dev);

#endif
