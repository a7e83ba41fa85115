# SPDX-License-Identifier: GPL-2.0
#
# kunit.py --qemu_config for rosebush: the kernel's own x86_64 parameters
# (tools/testing/kunit/qemu_configs/x86_64.py) plus two vCPUs and TCG.
# `kunit.py build` takes its kconfig (the serial console); the boot is
# scripts/qemu-kunit.sh's, which runs QEMU itself with these parameters
# (kept the same there) and an initramfs: change both together.
#
# TCG on purpose: on this project's machines /dev/kvm is a nested software
# hypervisor on which a KVM guest hangs after decompression.  TCG boots a
# KUnit kernel and runs the tests in seconds.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-bios', 'qboot.rom',
					      '-accel', 'tcg',
					      '-smp', '2'])
